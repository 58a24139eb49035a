# Target architecture and per-file ISA flags: every optimized kernel file is compiled with its own
# ISA's flags only, so the rest of the program runs on any CPU of the architecture.
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  set(CIOT_ARCH x86_64)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64|ARM64)$")
  set(CIOT_ARCH aarch64)
else()
  set(CIOT_ARCH generic)
endif()
message(STATUS "ciot: target architecture ${CIOT_ARCH}")

# Every ISA a kernel file can be compiled for: its file-name suffix is the lower-case name.
set(CIOT_ISAS AVX512VBMI AVX512VNNI AVXVNNI AVX2 I8MM NEONDOT NEON)
set(CIOT_FLAGS_AVX2 "-mavx2 -mfma -mf16c")
set(CIOT_FLAGS_AVXVNNI "-mavx2 -mfma -mf16c -mavxvnni")
set(CIOT_FLAGS_AVX512VNNI "-mavx2 -mfma -mf16c -mavx512f -mavx512bw -mavx512vl -mavx512vnni")
set(CIOT_FLAGS_AVX512VBMI "-mavx2 -mfma -mf16c -mavx512f -mavx512bw -mavx512vl -mavx512vnni -mavx512vbmi")
set(CIOT_FLAGS_NEON "-march=armv8-a")
set(CIOT_FLAGS_NEONDOT "-march=armv8.2-a+dotprod")
set(CIOT_FLAGS_I8MM "-march=armv8.2-a+dotprod+i8mm")

# ciot_isa_sources(<isa> files...): give each file the ISA's flags.
function(ciot_isa_sources isa)
  foreach(f IN LISTS ARGN)
    set_source_files_properties(${f} PROPERTIES COMPILE_FLAGS "${CIOT_FLAGS_${isa}}")
  endforeach()
endfunction()

# ciot_arch_sources(<var> <dir>): the per-ISA files under <dir>/x86 or <dir>/arm for this target,
# each given the flags its name ends in (_avx2.c, _avxvnni.c, _avx512vnni.c, _avx512vbmi.c, _neondot.c, _i8mm.c, _neon.c).
function(ciot_arch_sources var dir)
  set(files)
  if(CIOT_ARCH STREQUAL "x86_64")
    file(GLOB files CONFIGURE_DEPENDS ${dir}/x86/*.c)
  elseif(CIOT_ARCH STREQUAL "aarch64")
    file(GLOB files CONFIGURE_DEPENDS ${dir}/arm/*.c)
  endif()
  foreach(f IN LISTS files)
    get_filename_component(stem ${f} NAME_WE)
    foreach(isa IN LISTS CIOT_ISAS)
      string(TOLOWER ${isa} suffix)
      if(stem MATCHES "_${suffix}$")
        ciot_isa_sources(${isa} ${f})
        break()
      endif()
    endforeach()
  endforeach()
  set(${var} ${files} PARENT_SCOPE)
endfunction()
