# Windows on Arm, compiled only: clang for aarch64-w64-mingw32 with Debian's mingw-w64 headers (the x86-64
# package's; Debian has no ARM64 mingw runtime or libraries, so nothing is linked: CIOT_COMPILE_ONLY builds
# static libraries and object libraries). hwloc's and Google Benchmark's headers are the x86-64 builds'
# (build/windows-deps, scripts/deps): their declarations are the same on both.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR ARM64)
set(CMAKE_C_COMPILER clang)
set(CMAKE_CXX_COMPILER clang++)
set(CMAKE_C_COMPILER_TARGET aarch64-w64-mingw32)
set(CMAKE_CXX_COMPILER_TARGET aarch64-w64-mingw32)
set(CMAKE_AR llvm-ar CACHE FILEPATH "")
set(CMAKE_RANLIB llvm-ranlib CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

file(GLOB CIOT_MINGW_GCC_DIRS /usr/lib/gcc/x86_64-w64-mingw32/*-posix)
list(SORT CIOT_MINGW_GCC_DIRS)
list(POP_BACK CIOT_MINGW_GCC_DIRS CIOT_MINGW_GCC)
set(CIOT_DEPS ${CMAKE_CURRENT_LIST_DIR}/../build/windows-deps)
set(CMAKE_C_FLAGS_INIT "-isystem /usr/share/mingw-w64/include")
set(CMAKE_CXX_FLAGS_INIT "-isystem ${CIOT_MINGW_GCC}/include/c++ -isystem ${CIOT_MINGW_GCC}/include/c++/x86_64-w64-mingw32 -isystem /usr/share/mingw-w64/include")

set(CMAKE_FIND_ROOT_PATH ${CIOT_DEPS})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
