# Failing well: outputs that never damage their target, nor an input (test_distinct_paths), temporary
# files removed on signals, the JSON writer's UTF-8, quantizers on NaN/Inf, and signals at many moments of
# every long command (a shell script that starts the real program, under the emulator when cross-compiling).
ciot_test(test_output ${CMAKE_CURRENT_LIST_DIR}/test_output.c LINK ciot_io)
set_tests_properties(test_output PROPERTIES TIMEOUT 120)
ciot_test(test_distinct_paths ${CMAKE_CURRENT_LIST_DIR}/test_distinct_paths.c LINK ciot_io)
add_test(NAME test_interrupt COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/interrupt.sh ${CMAKE_CROSSCOMPILING_EMULATOR}
         $<TARGET_FILE:ciot>)
set_tests_properties(test_interrupt PROPERTIES TIMEOUT 180)
ciot_test(test_nonfinite ${CMAKE_CURRENT_LIST_DIR}/test_nonfinite.c LINK ciot_check)
ciot_test(test_model_limits ${CMAKE_CURRENT_LIST_DIR}/test_model_limits.c)
ciot_test(test_run_inputs ${CMAKE_CURRENT_LIST_DIR}/test_run_inputs.c)
