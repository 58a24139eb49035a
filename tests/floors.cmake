# The floors (harness/CMakeLists.txt): every library may include the headers of the floors below it and
# of its own, never one above, and check/ never measure/'s (nor measure/ check/'s). floors_no_upward_include
# preprocesses `#include "H"` with exactly a library's include directories, taken from the target, for every
# header H of every library it may not use, and requires that none is found (one run a library; when one is,
# each is compiled alone for the finding); positive controls (each of its own headers and one header of
# every lower library it links) must compile, so the test cannot pass by finding nothing; and no source
# includes a quoted path with "..", which would step around the floors.
set(ciot_floors ciot_os ciot_kernels ciot_pools ciot_io ciot_measure ciot_check ciot_profiles ciot_cmd)
set(ciot_floor_may_use_ciot_os "")
set(ciot_floor_may_use_ciot_kernels ciot_os)
set(ciot_floor_may_use_ciot_pools ciot_os ciot_kernels)
set(ciot_floor_may_use_ciot_io ciot_os ciot_kernels ciot_pools)
set(ciot_floor_may_use_ciot_measure ciot_os ciot_kernels ciot_pools ciot_io)
set(ciot_floor_may_use_ciot_check ciot_os ciot_kernels ciot_pools ciot_io)
set(ciot_floor_may_use_ciot_profiles ciot_os ciot_kernels ciot_pools ciot_io ciot_measure)
set(ciot_floor_may_use_ciot_cmd ciot_os ciot_kernels ciot_pools ciot_io ciot_measure ciot_check ciot_profiles)
# Headers compiled as C++ in the positive controls (the rest as C11).
set(ciot_floor_cxx_headers bench_console.h bench_run.h bench_state.h)

set(floors_content "set(FLOORS \"${ciot_floors}\")\nset(CXX_HEADERS \"${ciot_floor_cxx_headers}\")\n")
foreach(lib IN LISTS ciot_floors)
  get_target_property(own ${lib} INTERFACE_INCLUDE_DIRECTORIES)   # its own, not those it links
  string(APPEND floors_content
    "set(MAY_USE_${lib} \"${ciot_floor_may_use_${lib}}\")\n"
    "set(OWN_${lib} \"${own}\")\n"
    "set(DIRS_${lib} \"$<TARGET_PROPERTY:${lib},INCLUDE_DIRECTORIES>\")\n")
endforeach()
file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/floors/floors.cmake CONTENT "${floors_content}")

set(floors_target "")
if(CMAKE_C_COMPILER_TARGET)
  set(floors_target "--target=${CMAKE_C_COMPILER_TARGET}")
endif()
add_test(NAME floors_no_upward_include
         COMMAND ${CMAKE_COMMAND} -DFLOORS_FILE=${CMAKE_BINARY_DIR}/floors/floors.cmake
                 -DWORK=${CMAKE_BINARY_DIR}/floors -DSOURCE=${PROJECT_SOURCE_DIR}
                 -DCC=${CMAKE_C_COMPILER} -DCXX=${CMAKE_CXX_COMPILER} -DTARGET_FLAG=${floors_target}
                 -P ${CMAKE_CURRENT_LIST_DIR}/floors/no_upward_include.cmake)
