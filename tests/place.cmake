# Placement (pools/place.h) on hwloc XML topologies of machines this harness is for, without the hardware: the
# PUs each placement picks, and `ciot info` printing each topology's domains and CPU kinds.
set(ciot_topologies ${CMAKE_CURRENT_LIST_DIR}/data/topologies)
add_executable(test_place ${CMAKE_CURRENT_LIST_DIR}/test_place.c)
target_link_libraries(test_place PRIVATE ciot_pools)
set_target_properties(test_place PROPERTIES LINKER_LANGUAGE C)
add_test(NAME test_place COMMAND test_place ${ciot_topologies})
foreach(shape IN ITEMS snapdragon-x-elite intel-hybrid server-2s)
  add_test(NAME ciot_info_domains_${shape} COMMAND ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:ciot> info)
  set_tests_properties(ciot_info_domains_${shape} PROPERTIES ENVIRONMENT "HWLOC_XMLFILE=${ciot_topologies}/${shape}.xml;CIOT_TUNING=none")
endforeach()
set_tests_properties(ciot_info_domains_snapdragon-x-elite PROPERTIES PASS_REGULAR_EXPRESSION
  "domains +3 by L2 \\(--place\\): L2 0 PUs 0-3 \\(4 cores\\), L2 1 PUs 4-7 \\(4 cores\\), L2 2 PUs 8-11 \\(4 cores\\)\ncpu kinds +one kind")
set_tests_properties(ciot_info_domains_intel-hybrid PROPERTIES PASS_REGULAR_EXPRESSION
  "domains +2 by cpukind \\(--place\\): kind E \\(IntelAtom\\) PUs 8-15 \\(8 cores\\), kind P \\(IntelCore\\) PUs 0-7 \\(4 cores\\)\ncpu kinds +kind E \\(IntelAtom\\) PUs 8-15 \\(8 cores\\), kind P \\(IntelCore\\) PUs 0-7")
set_tests_properties(ciot_info_domains_server-2s PROPERTIES PASS_REGULAR_EXPRESSION
  "domains +6 by L3 \\(--place\\): L3 0 PUs 0-3,24-27 \\(4 cores\\), .*L3 5 PUs 20-23,44-47 \\(4 cores\\)\ncpu kinds +one kind")
