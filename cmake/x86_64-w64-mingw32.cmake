# Cross-compile for Windows x86-64 against Debian's mingw-w64 (headers, CRT, winpthreads): the C code, every
# kernel among it, with clang, which unlike gcc keeps 32- and 64-byte AVX spills aligned on Win64's 16-byte
# stack; the C++ code (bench, Google Benchmark; no ISA-specific flags) with mingw's posix-threads g++, whose
# libstdc++ clang 14 cannot link against (a duplicate std::type_info::operator==).
# hwloc and Google Benchmark come from build/windows-deps (scripts/deps builds them); ctest runs the
# programs under wine64.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CIOT_MINGW_TRIPLE x86_64-w64-mingw32)
set(CMAKE_C_COMPILER clang)
set(CMAKE_CXX_COMPILER ${CIOT_MINGW_TRIPLE}-g++-posix)
set(CMAKE_RC_COMPILER ${CIOT_MINGW_TRIPLE}-windres)
set(CMAKE_C_COMPILER_TARGET ${CIOT_MINGW_TRIPLE})

# clang 14 does not find Debian's gcc directory ("12-posix"): name it, for libgcc.
file(GLOB CIOT_MINGW_GCC_DIRS /usr/lib/gcc/${CIOT_MINGW_TRIPLE}/*-posix)
list(SORT CIOT_MINGW_GCC_DIRS)
list(POP_BACK CIOT_MINGW_GCC_DIRS CIOT_MINGW_GCC)
if(NOT CIOT_MINGW_GCC)
  message(FATAL_ERROR "no /usr/lib/gcc/${CIOT_MINGW_TRIPLE}/*-posix: install g++-mingw-w64-x86-64 (scripts/deps)")
endif()
# One self-contained ciot.exe: no libstdc++ or winpthread DLL to ship beside it; winpthreads for libstdc++.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-L${CIOT_MINGW_GCC} -static")
set(CMAKE_CXX_STANDARD_LIBRARIES "-lpthread -lkernel32 -luser32 -ladvapi32 -lshell32")
set(CMAKE_C_STANDARD_LIBRARIES "-lpthread -lkernel32 -luser32 -ladvapi32 -lshell32")

set(CMAKE_FIND_ROOT_PATH /usr/${CIOT_MINGW_TRIPLE} ${CMAKE_CURRENT_LIST_DIR}/../build/windows-deps)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(CMAKE_CROSSCOMPILING_EMULATOR ${CMAKE_CURRENT_LIST_DIR}/../scripts/lib/wine-run)
