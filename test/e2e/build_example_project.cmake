# Configures, builds and runs examples/cmake_project against this build's
# tirc (a ctest: -DSOURCE_DIR -DBINARY_DIR -DTIRC_DIR -DTIRC_EXE [-DC_FLAGS -DC_COMPILER]); then
# again with TUNE_DB, from a database a short `tirc tune` made.
include("${CMAKE_CURRENT_LIST_DIR}/build_project.cmake")
file(REMOVE_RECURSE "${BINARY_DIR}")
function(build_and_run)
  configure_and_build("${SOURCE_DIR}/examples/cmake_project" "the example project" ${ARGN})
  set(data "${SOURCE_DIR}/examples/models/mlp/test_data_set_0")
  execute_process(COMMAND "${BINARY_DIR}/mlp_demo" "${data}/input_0.bin" "${data}/output_0.bin"
                  RESULT_VARIABLE rc)
  if(rc)
    message(FATAL_ERROR "mlp_demo failed")
  endif()
endfunction()

build_and_run()
set(db "${BINARY_DIR}/../example_mlp_tune.db")
file(REMOVE "${db}")
execute_process(COMMAND "${TIRC_EXE}" tune "${SOURCE_DIR}/examples/models/mlp/model.onnx" --db "${db}"
                        --budget 2s RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "tirc tune of the example model failed")
endif()
build_and_run("-DMLP_TUNE_DB=${db}")
