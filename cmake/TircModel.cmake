# tirc_add_model(TARGET <name> MODEL <model.onnx | module.tir>
#                [NAME <symbol-prefix>]
#                [ISA <x86-64-avx512 | x86-64-avx2 | aarch64-linux-gnu>] [MCPU <cpu>]
#                [DIMS <name>=<value>...] [OPTIONS <extra tirc compile flags>...]
#                [TUNE_DB <tune.db>])
#
# Compiles a model with `tirc compile` at build time and gives a static library
# target <name> holding its object (every kernel, the weights and the entry
# `int <prefix>_run(const float* in0, ..., float* out0, ...)`). Linking the
# target adds the generated header's directory to the include path
# (#include "<prefix>.h") and links the tirc runtime and threads.
# NAME defaults to <name>; ISA defaults to the build machine's CPU, so set it
# when the program runs elsewhere; in a cross build for AArch64
# (CMAKE_SYSTEM_PROCESSOR aarch64, e.g. with cmake/aarch64-linux-gnu.cmake) it
# defaults to aarch64-linux-gnu. MCPU picks the CPU for the LLVM generator
# (`--mcpu`, e.g. neoverse-n1). The object is rebuilt when the model (or,
# for a .tir module, its weights side file) or tirc changes. TUNE_DB schedules
# every kernel by its best record in a tuning database made by `tirc tune
# --db` (kernels without one get the rules), and rebuilds when it changes.
# DIMS binds the model's symbolic dimensions (ONNX dim_params), one
# `--dim <name>=<value>` each: `DIMS batch=1 seq=128` compiles a model whose
# inputs are [batch, seq, ...] for batch 1 and sequence length 128 (the header
# lists the values). A whole input shape goes in OPTIONS: `--shape x=1x3x224x224`.
#
# Needs TIRC_EXECUTABLE and the imported target tirc::runtime, which
# find_package(Tirc CONFIG) provides.
function(tirc_add_model)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "TARGET;MODEL;NAME;ISA;MCPU;TUNE_DB" "OPTIONS;DIMS")
  if(NOT ARG_TARGET OR NOT ARG_MODEL)
    message(FATAL_ERROR "tirc_add_model: TARGET and MODEL are required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "tirc_add_model: unexpected arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TIRC_EXECUTABLE OR NOT TARGET tirc::runtime)
    message(FATAL_ERROR "tirc_add_model: call find_package(Tirc CONFIG REQUIRED) first")
  endif()
  set(name "${ARG_NAME}")
  if(NOT name)
    set(name "${ARG_TARGET}")
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  set(depends "${model}")
  if(model MATCHES "\\.tir$" AND EXISTS "${model}.weights")
    list(APPEND depends "${model}.weights")
  elseif(model MATCHES "\\.onnx$" AND EXISTS "${model}.data")
    list(APPEND depends "${model}.data")
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/tirc_models/${ARG_TARGET}")
  set(object "${dir}/${name}.o")
  set(header "${dir}/${name}.h")
  set(db_flag "")
  if(ARG_TUNE_DB)
    get_filename_component(db "${ARG_TUNE_DB}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${db}")
      message(FATAL_ERROR "tirc_add_model(${ARG_TARGET}): no tuning database '${db}' "
                          "(make one with: tirc tune ${ARG_MODEL} --db ${ARG_TUNE_DB})")
    endif()
    set(db_flag "--db=${db}")
    list(APPEND depends "${db}")
  endif()
  set(dim_flags "")
  foreach(dim IN LISTS ARG_DIMS)
    if(NOT dim MATCHES "^[^=]+=[0-9]+$")
      message(FATAL_ERROR "tirc_add_model(${ARG_TARGET}): DIMS takes <name>=<value> pairs, "
                          "such as DIMS batch=1 seq=128, not '${dim}'")
    endif()
    list(APPEND dim_flags "--dim=${dim}")
  endforeach()
  set(isa_flag "")
  if(NOT ARG_ISA AND CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
    set(ARG_ISA aarch64-linux-gnu)
  endif()
  if(ARG_ISA)
    set(isa_flag "--target=${ARG_ISA}")
  endif()
  if(ARG_MCPU)
    list(APPEND isa_flag "--mcpu=${ARG_MCPU}")
  endif()
  add_custom_command(
    OUTPUT "${object}" "${header}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${dir}"
    COMMAND "${TIRC_EXECUTABLE}" compile "${model}" -o "${object}" -H "${header}" --name "${name}"
            ${isa_flag} ${db_flag} ${dim_flags} ${ARG_OPTIONS}
    DEPENDS ${depends} "${TIRC_EXECUTABLE}"
    COMMENT "tirc: compiling ${ARG_MODEL} -> ${name}.o"
    VERBATIM)
  add_library(${ARG_TARGET} STATIC "${object}" "${header}")
  set_target_properties(${ARG_TARGET} PROPERTIES LINKER_LANGUAGE C)
  target_include_directories(${ARG_TARGET} INTERFACE "${dir}")
  target_link_libraries(${ARG_TARGET} INTERFACE tirc::runtime)
endfunction()
