# The bad-input matrix (tests/bad_inputs.tsv, run by tests/bad_inputs.py): every row a command with its
# exit code and its one line on stderr, natively, under the sanitizers and under the emulator (rows that
# need gigabytes or this machine's CPU are skipped there). The rows that call plots/render are a test of
# their own, test_bad_inputs_render, in the native Release build only, as test_plots is; so is the
# runner's own self-test (every check it makes must fire on a stand-in for ciot that misbehaves:
# tests/bad_inputs_selftest).
find_program(CIOT_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT CIOT_PYTHON3)
  message(WARNING "ciot: /usr/bin/python3 not found: test_bad_inputs is not registered")
  return()
endif()
string(JOIN " " bad_inputs_emulator ${CMAKE_CROSSCOMPILING_EMULATOR})
add_test(NAME test_bad_inputs COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/bad_inputs.py --ciot $<TARGET_FILE:ciot>
         --emulator "${bad_inputs_emulator}" --arch ${CMAKE_SYSTEM_PROCESSOR})
set_tests_properties(test_bad_inputs PROPERTIES TIMEOUT 1800 COST 500)   # long: started early (ctest -j)
if(NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  # its own entry: it runs no ciot code, so the masked native runs leave it out (label any_cpu)
  add_test(NAME test_bad_inputs_render COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/bad_inputs.py
           --ciot $<TARGET_FILE:ciot> --part render)
  set_tests_properties(test_bad_inputs_render PROPERTIES TIMEOUT 600 COST 400)
  add_test(NAME bad_inputs_runner_catches COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/bad_inputs_selftest/run.sh ${CIOT_PYTHON3})
endif()
