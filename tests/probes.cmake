# The DRAM and compute probes, their commands' input checks, the JSON writer and the CLI parsers.
ciot_test(test_probes ${CMAKE_CURRENT_LIST_DIR}/test_probes.c)
set_tests_properties(test_probes PROPERTIES TIMEOUT 300)

# The real executable must refuse bad input with a non-zero exit before any long work.
foreach(bad_args IN ITEMS "bw;--threads;0" "bw;--size;999T" "bw;--kernels;read,bogus" "compute;--threads;0")
  string(REPLACE ";--" "_" test_name "ciot_rejects_${bad_args}")
  string(REPLACE ";" "_" test_name "${test_name}")
  string(REGEX REPLACE "[^A-Za-z0-9_]" "_" test_name "${test_name}")
  add_test(NAME ${test_name} COMMAND ciot ${bad_args})
  set_tests_properties(${test_name} PROPERTIES WILL_FAIL TRUE TIMEOUT 60)
endforeach()

# The roof of a benchmark row (harness/measure/roof.h) and the compute samples bench pairs with a gemm.
ciot_test(test_roof ${CMAKE_CURRENT_LIST_DIR}/test_roof.c LINK ciot_measure)
set_tests_properties(test_roof PROPERTIES TIMEOUT 120)
ciot_test(test_suite_summary ${CMAKE_CURRENT_LIST_DIR}/test_suite_summary.c)
# The working-set rule against an implausible LLC, on three hwloc synthetic topologies.
add_executable(test_llc_rule ${CMAKE_CURRENT_LIST_DIR}/test_llc_rule.c)
target_link_libraries(test_llc_rule PRIVATE ciot_measure)
foreach(shape vm server desktop)
  add_test(NAME test_llc_rule_${shape} COMMAND test_llc_rule ${shape})
endforeach()
# The tuning file and the one kernel choice (tune, info, bench, suite, replay), timing nothing.
ciot_test(test_tuning ${CMAKE_CURRENT_LIST_DIR}/test_tuning.c)
