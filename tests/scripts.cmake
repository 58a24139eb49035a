# The test runner's own counting (scripts/count-tests): a red configuration is never counted as 0 failed.
# It runs no ciot code, so it runs once, in the native Release build.
if(NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  add_test(NAME test_count_tests COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/count_tests.sh)
endif()
# scripts/arm-cost's --out writes through a descriptor, FIFO or device, never renames over it.
# scripts/compare's summary: per-round ratios, each file's fastest kernel, the target verdict, unfinished rounds.
find_program(CIOT_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(CIOT_PYTHON3 AND NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  add_test(NAME test_arm_cost_output COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/arm_cost_output.py)
  add_test(NAME test_compare_summary COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/compare_summary.py)
  set_tests_properties(test_arm_cost_output test_compare_summary PROPERTIES TIMEOUT 60)
  # Every script answers --help at once, running nothing (tools it would start are shims that leave a mark).
  add_test(NAME test_scripts_help COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/scripts_help.py)
  set_tests_properties(test_scripts_help PROPERTIES TIMEOUT 120 LABELS any_cpu)
endif()
# Code comments carry no measured figure and no history (tests/no_figures_in_comments.py says what it catches).
if(CIOT_PYTHON3 AND NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  add_test(NAME test_no_figures_in_comments COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/no_figures_in_comments.py)
  set_tests_properties(test_no_figures_in_comments PROPERTIES TIMEOUT 60 LABELS any_cpu)
endif()
# scripts/x86-mix reads callgrind's counts right (a known kernel's multiplies per MAC). Skipped (77) where
# valgrind's CPU has no AVX2; valgrind and ASan do not mix, so not in the Debug build.
find_program(CIOT_VALGRIND valgrind)
if(CIOT_PYTHON3 AND CIOT_VALGRIND AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND NOT CMAKE_CROSSCOMPILING
   AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  add_test(NAME test_x86_mix_counts COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/x86_mix_counts.py $<TARGET_FILE:ciot>)
  set_tests_properties(test_x86_mix_counts PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS any_kernel)
endif()
# Each x86 compute-probe loop, as compiled, issues the multiplies it declares (`ciot compute --list` against
# objdump of ciot_compute_loop_NAME): a loop the compiler folded would time too high a roof. Static, so the
# same on every CPU; the Release build only (its loops are unrolled whole).
find_program(CIOT_OBJDUMP objdump)
if(CIOT_PYTHON3 AND CIOT_OBJDUMP AND CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64" AND NOT CMAKE_CROSSCOMPILING
   AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  add_test(NAME test_compute_loop_multiplies COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/compute_loop_multiplies.py
           $<TARGET_FILE:ciot>)
  set_tests_properties(test_compute_loop_multiplies PROPERTIES TIMEOUT 60 LABELS any_cpu)
endif()
# Peer modules against the test module (tests/peers.py says what it catches); not under the sanitizers, whose
# runtime a module loaded into the program would need too.
if(CIOT_PYTHON3 AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  add_test(NAME test_peers COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/peers.py $<TARGET_FILE:ciot> ${CMAKE_CROSSCOMPILING_EMULATOR})
  set_tests_properties(test_peers PROPERTIES TIMEOUT 300 LABELS any_kernel)
endif()
# No file outside os/ includes an OS header (tests/os_seam.py says what it catches).
if(CIOT_PYTHON3 AND NOT CMAKE_CROSSCOMPILING AND NOT CMAKE_BUILD_TYPE STREQUAL "Debug")
  add_test(NAME test_os_seam COMMAND ${CIOT_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/os_seam.py)
  set_tests_properties(test_os_seam PROPERTIES TIMEOUT 60 LABELS any_cpu)
endif()
