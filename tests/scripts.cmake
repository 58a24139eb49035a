# The test runner's own counting (scripts/count-tests): a red configuration is never counted as 0 failed.
# It runs no ciot code, so it runs once, in the native Release build.
if(NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  add_test(NAME test_count_tests COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/count_tests.sh)
endif()
# scripts/arm-cost's --out writes through a descriptor, FIFO or device, never renames over it.
find_program(CIOT_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(CIOT_PYTHON3 AND NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  add_test(NAME test_arm_cost_output COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/arm_cost_output.py)
  set_tests_properties(test_arm_cost_output PROPERTIES TIMEOUT 60)
endif()
