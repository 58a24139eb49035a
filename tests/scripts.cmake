# The test runner's own counting (scripts/count-tests): a red configuration is never counted as 0 failed.
# It runs no ciot code, so it runs once, in the native Release build.
if(NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  add_test(NAME test_count_tests COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/count_tests.sh)
endif()
