# Thread pools and work splits: exactness for every thread count, oversubscription, shutdown, spans.
ciot_test(test_pools ${CMAKE_CURRENT_LIST_DIR}/test_pools.c LINK ciot_pools)
set_tests_properties(test_pools PROPERTIES TIMEOUT 300)
