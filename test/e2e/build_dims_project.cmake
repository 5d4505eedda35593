# Configures, builds and runs test/e2e/dims_project, which compiles a model with
# symbolic dimensions through tirc_add_model(... DIMS batch=2 seq=5), against
# this build's tirc (a ctest: -DSOURCE_DIR -DBINARY_DIR -DTIRC_DIR [-DC_FLAGS -DC_COMPILER]);
# checks the generated header documents the values.
include("${CMAKE_CURRENT_LIST_DIR}/build_project.cmake")
file(REMOVE_RECURSE "${BINARY_DIR}")
configure_and_build("${SOURCE_DIR}/test/e2e/dims_project" "the DIMS project"
                    "-DMODEL=${SOURCE_DIR}/test/onnx/symbolic/matmul_add.onnx")
file(READ "${BINARY_DIR}/tirc_models/sym/sym.h" header)
string(FIND "${header}" "compiled for the symbolic dimensions batch=2, seq=5" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the header does not document batch=2, seq=5:\n${header}")
endif()
execute_process(COMMAND "${BINARY_DIR}/sym_demo" RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "sym_demo failed")
endif()
