# CMake toolchain file for building a program for 64-bit Arm Linux on an x86-64
# Debian machine (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross; qemu-user runs the
# results): cmake -DCMAKE_TOOLCHAIN_FILE=<tirc>/cmake/aarch64-linux-gnu.cmake ...
# With find_package(Tirc), tirc_add_model() then compiles models for AArch64 and the
# tirc runtime is built from its C sources with this compiler.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Programs, headers and libraries come from the cross sysroot; tools from the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# ctest and add_custom_command(... $<TARGET_FILE:...>) run the programs under qemu.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu)
