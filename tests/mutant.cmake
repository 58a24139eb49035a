# The mutation check: ciot_mutant is the ciot program with one more kernel, t2p_gemv_mutant_ref, that
# returns one wrong output bit (tests/mutant/). Its registry is kernels/registry.c compiled again with
# CIOT_TEST_MUTANT; the object comes before the kernels library, so it replaces the library's registry.
# The ciot program itself never contains the mutant. These tests pass only because the failure is
# caught: ciot check and the oracle must report it, with a non-zero exit.
add_executable(ciot_mutant ${PROJECT_SOURCE_DIR}/harness/cmd/main.c ${PROJECT_SOURCE_DIR}/kernels/registry.c
               ${CMAKE_CURRENT_LIST_DIR}/mutant/t2p_gemv_mutant_ref.c)
target_compile_definitions(ciot_mutant PRIVATE CIOT_TEST_MUTANT)
target_link_libraries(ciot_mutant PRIVATE ciot_cmd)
set_target_properties(ciot_mutant PROPERTIES LINKER_LANGUAGE CXX)

add_executable(mutant_oracle ${CMAKE_CURRENT_LIST_DIR}/test_oracle.c ${PROJECT_SOURCE_DIR}/kernels/registry.c
               ${CMAKE_CURRENT_LIST_DIR}/mutant/t2p_gemv_mutant_ref.c)
target_compile_definitions(mutant_oracle PRIVATE CIOT_TEST_MUTANT)
target_link_libraries(mutant_oracle PRIVATE ciot_check)
set_target_properties(mutant_oracle PROPERTIES LINKER_LANGUAGE CXX)

add_test(NAME mutant_caught_by_check COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh 1 out "^0 passed, [1-9][0-9]* failed, 0 skipped$"
         ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:ciot_mutant> check --quick --kernel mutant)
add_test(NAME mutant_caught_by_oracle COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh 1 out "^[0-9]+ passed, [1-9][0-9]* failed, [0-9]+ skipped$"
         ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:mutant_oracle>)
set_tests_properties(mutant_caught_by_oracle PROPERTIES ENVIRONMENT "CIOT_ORACLE_FILTER=mutant")
# The program the user runs has no mutant.
add_test(NAME mutant_absent_from_ciot COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh 2 err "no kernel matched mutant"
         ${CMAKE_CROSSCOMPILING_EMULATOR} $<TARGET_FILE:ciot> check --kernel mutant)
