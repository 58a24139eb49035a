# Cross-compile for aarch64 Linux with clang against Debian's arm64 multiarch libraries;
# ctest runs the programs under qemu-aarch64 with the CPU model CIOT_QEMU_CPU.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER clang)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)

set(CIOT_QEMU_CPU "max" CACHE STRING "qemu-aarch64 CPU model the tests run on (max, cortex-a76, cortex-a72)")
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -cpu ${CIOT_QEMU_CPU})
