# Cross-builds examples/cmake_project for AArch64 (cmake/aarch64-linux-gnu.cmake) against
# this build's tirc: tirc_add_model compiles the model for aarch64-linux-gnu, the runtime
# is compiled from its sources by the cross compiler, and the program runs under
# qemu-aarch64 against the model's reference output (a ctest: -DSOURCE_DIR -DBINARY_DIR
# -DTIRC_DIR).
include("${CMAKE_CURRENT_LIST_DIR}/build_project.cmake")
file(REMOVE_RECURSE "${BINARY_DIR}")
set(C_FLAGS "")  # the host's sanitizer flags and compiler are not for the cross build
set(C_COMPILER "")
configure_and_build("${SOURCE_DIR}/examples/cmake_project" "the example project for AArch64"
                    "-DCMAKE_TOOLCHAIN_FILE=${SOURCE_DIR}/cmake/aarch64-linux-gnu.cmake")
execute_process(COMMAND file "${BINARY_DIR}/mlp_demo" OUTPUT_VARIABLE kind)
if(NOT kind MATCHES "ARM aarch64")
  message(FATAL_ERROR "mlp_demo is not an AArch64 program: ${kind}")
endif()
set(data "${SOURCE_DIR}/examples/models/mlp/test_data_set_0")
execute_process(COMMAND qemu-aarch64 -L /usr/aarch64-linux-gnu "${BINARY_DIR}/mlp_demo"
                        "${data}/input_0.bin" "${data}/output_0.bin"
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "mlp_demo (AArch64, under qemu-aarch64) failed")
endif()
