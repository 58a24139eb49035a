# The replay profiler: profile totals, parser and command refusals, a short run of every dispatch with
# its JSON, and a straggler measured as wait. Run alone: the straggler check needs both cores.
ciot_test(test_replay ${CMAKE_CURRENT_LIST_DIR}/test_replay.c)
set_tests_properties(test_replay PROPERTIES TIMEOUT 300 RUN_SERIAL TRUE)

# The real executable refuses bad input with a non-zero exit before any long work.
foreach(bad_args IN ITEMS "replay;--model;tiny-0.6b;--threads;0" "replay;--model;no-such-model"
                          "replay;--model;tiny-0.6b;--dispatch;bogus" "replay")
  string(REGEX REPLACE "[^A-Za-z0-9]+" "_" test_name "ciot_rejects_${bad_args}")
  add_test(NAME ${test_name} COMMAND ciot ${bad_args})
  set_tests_properties(${test_name} PROPERTIES WILL_FAIL TRUE TIMEOUT 60)
endforeach()

# The whole token: Bonsai's list and memory, and a small hybrid list replayed op by op on the pool.
ciot_test(test_whole_token ${CMAKE_CURRENT_LIST_DIR}/test_whole_token.c)
target_compile_definitions(test_whole_token PRIVATE CIOT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
set_tests_properties(test_whole_token PROPERTIES TIMEOUT 120)
