# The bad-input matrix (tests/bad_inputs.tsv, run by tests/bad_inputs.py): every row a command with its
# exit code and its one line on stderr, natively, under the sanitizers and under the emulator (rows that
# need gigabytes or this machine's CPU are skipped there). The rows that call plots/render run in the
# native Release build only, as test_plots does, and so does the runner's own self-test (every check it
# makes must fire on a stand-in for ciot that misbehaves: tests/bad_inputs_selftest).
find_program(CIOT_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT CIOT_PYTHON3)
  message(WARNING "ciot: /usr/bin/python3 not found: test_bad_inputs is not registered")
  return()
endif()
string(JOIN " " bad_inputs_emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
set(bad_inputs_render "")
if(NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  set(bad_inputs_render --render)
endif()
add_test(NAME test_bad_inputs COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/bad_inputs.py --ciot $<TARGET_FILE:ciot>
         --emulator "${bad_inputs_emulator}" --arch ${CMAKE_SYSTEM_PROCESSOR} ${bad_inputs_render})
set_tests_properties(test_bad_inputs PROPERTIES TIMEOUT 1800 COST 500)   # long: started early (ctest -j)
if(bad_inputs_render)
  add_test(NAME bad_inputs_runner_catches COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/bad_inputs_selftest/run.sh ${CIOT_PYTHON3})
endif()
