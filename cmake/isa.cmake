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

# Every ISA a kernel file can be compiled for and its flags, read from kernels/isa.def (the rows' suffix and
# flags columns): CIOT_ISAS lists the upper-case suffixes last row first (the order the run metadata's
# CIOT_ISA_FLAGS has always had), CIOT_FLAGS_<ISA> holds each one's flags.
set(CIOT_ISA_TABLE ${CMAKE_CURRENT_LIST_DIR}/../kernels/isa.def)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CIOT_ISA_TABLE})
file(READ ${CIOT_ISA_TABLE} isa_table)
string(REPLACE "\\" "" isa_table "${isa_table}") # the macro's line continuations
string(REGEX MATCHALL "\n *X\\([^\n]*" isa_rows "${isa_table}")
set(CIOT_ISAS)
foreach(row IN LISTS isa_rows)
  if(NOT row MATCHES "^\n *X\\( *[A-Z0-9_]+, *[a-z0-9_]+, *([a-z0-9_]*), *\"([^\"]*)\"")
    message(FATAL_ERROR "kernels/isa.def: cannot read the suffix and flags of: ${row}")
  endif()
  if(CMAKE_MATCH_1)
    string(TOUPPER ${CMAKE_MATCH_1} isa)
    set(CIOT_FLAGS_${isa} "${CMAKE_MATCH_2}")
    list(PREPEND CIOT_ISAS ${isa})
  endif()
endforeach()

# ciot_isa_sources(<isa> files...): give each file the ISA's flags.
function(ciot_isa_sources isa)
  foreach(f IN LISTS ARGN)
    set_source_files_properties(${f} PROPERTIES COMPILE_FLAGS "${CIOT_FLAGS_${isa}}")
  endforeach()
endfunction()

# ciot_arch_sources(<var> <dir>): the per-ISA files under <dir>/x86 or <dir>/arm for this target,
# each given the flags of the suffix its name ends in (_avx2.c, _neondot.c, ...: kernels/isa.def).
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
