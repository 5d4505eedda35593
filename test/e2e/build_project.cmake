# configure_and_build(<project dir> <what> [-D... arguments]): configures the
# CMake project in <project dir> into BINARY_DIR against this build's tirc
# (TIRC_DIR, with C_FLAGS and, where given, C_COMPILER) and builds it; a
# failure names <what>. Included by the ctest scripts beside it.
function(configure_and_build project what)
  set(compiler "")
  if(C_COMPILER)
    set(compiler "-DCMAKE_C_COMPILER=${C_COMPILER}")
  endif()
  execute_process(
    COMMAND ${CMAKE_COMMAND} -S "${project}" -B "${BINARY_DIR}" -G Ninja
            "-DTirc_DIR=${TIRC_DIR}" "-DCMAKE_C_FLAGS=${C_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${C_FLAGS}"
            ${compiler} ${ARGN}
    RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "configuring ${what} failed")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build "${BINARY_DIR}" RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "building ${what} failed")
  endif()
endfunction()
