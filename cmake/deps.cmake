# hwloc (topology, pinning) and Google Benchmark, from Debian's packages (native or arm64 multiarch).
find_path(HWLOC_INCLUDE_DIR hwloc.h REQUIRED)
find_library(HWLOC_LIBRARY hwloc REQUIRED)
add_library(ciot_hwloc INTERFACE)
target_include_directories(ciot_hwloc INTERFACE ${HWLOC_INCLUDE_DIR})
target_link_libraries(ciot_hwloc INTERFACE ${HWLOC_LIBRARY})

find_package(benchmark REQUIRED)
find_package(Threads REQUIRED)
