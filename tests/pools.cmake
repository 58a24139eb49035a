# Thread pools and work splits: exactness for every thread count, oversubscription, shutdown, spans.
ciot_test(test_pools ${CMAKE_CURRENT_LIST_DIR}/test_pools.c LINK ciot_pools)
set_tests_properties(test_pools PROPERTIES TIMEOUT 300)

# The one parallel loop of bench and the replay (harness/measure/parallel.c): splits, hooks, shared quantization.
ciot_test(test_parallel ${CMAKE_CURRENT_LIST_DIR}/test_parallel.c LINK ciot_measure)
set_tests_properties(test_parallel PROPERTIES TIMEOUT 120)
