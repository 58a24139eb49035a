# Formats, quantizers, repacks, CPU detection, the oracle and the ciot program.
ciot_test(test_fp16 ${CMAKE_CURRENT_LIST_DIR}/test_fp16.c LINK ciot_kernels)
ciot_test(test_golden ${CMAKE_CURRENT_LIST_DIR}/test_golden.c LINK ciot_kernels)
target_compile_definitions(test_golden PRIVATE CIOT_GOLDEN_DIR="${PROJECT_SOURCE_DIR}/tests/data/golden")
ciot_test(test_canonical ${CMAKE_CURRENT_LIST_DIR}/test_canonical.c LINK ciot_check)
target_compile_definitions(test_canonical PRIVATE CIOT_GOLDEN_DIR="${PROJECT_SOURCE_DIR}/tests/data/golden")
ciot_test(test_ptq1 ${CMAKE_CURRENT_LIST_DIR}/test_ptq1.c LINK ciot_kernels)
ciot_test(test_repack ${CMAKE_CURRENT_LIST_DIR}/test_repack.c LINK ciot_kernels)
ciot_test(test_repack_lut ${CMAKE_CURRENT_LIST_DIR}/test_repack_lut.c LINK ciot_kernels)
ciot_test(test_lut_bytes ${CMAKE_CURRENT_LIST_DIR}/test_lut_bytes.c LINK ciot_kernels)
ciot_test(test_cpu ${CMAKE_CURRENT_LIST_DIR}/test_cpu.c LINK ciot_kernels)
target_compile_definitions(test_cpu PRIVATE CIOT_SOURCE_DIR="${PROJECT_SOURCE_DIR}")  # provenance files
ciot_test(test_oracle ${CMAKE_CURRENT_LIST_DIR}/test_oracle.c LINK ciot_check)
# Under the sanitizers and the emulator, cases up to 1M weights x batch (what check --quick runs): every
# kernel still meets K 17408 on a few rows and 7 tiles of rows on a short K, every slice and edge pattern,
# and the run takes a third of the time; the Release build keeps the full 6M-weight cases.
if(CMAKE_CROSSCOMPILING OR CMAKE_BUILD_TYPE STREQUAL "Debug")
  set_tests_properties(test_oracle PROPERTIES ENVIRONMENT "CIOT_ORACLE_MAX_WEIGHTS=1048576")
endif()
set_tests_properties(test_oracle PROPERTIES COST 800)   # long: started early (ctest -j)
ciot_test(test_cli ${CMAKE_CURRENT_LIST_DIR}/test_cli.c)

# The program itself: usage, unknown commands and bad CIOT_CPU exit non-zero with a message.
add_test(NAME ciot_help COMMAND ciot --help)
set_tests_properties(ciot_help PROPERTIES PASS_REGULAR_EXPRESSION "usage: ciot")
add_test(NAME ciot_unknown_command COMMAND ciot frobnicate)
set_tests_properties(ciot_unknown_command PROPERTIES WILL_FAIL TRUE)
add_test(NAME ciot_bad_cpu_mask COMMAND ciot kernels)
set_tests_properties(ciot_bad_cpu_mask PROPERTIES ENVIRONMENT "CIOT_CPU=avx9" WILL_FAIL TRUE)
add_test(NAME ciot_kernels_lists COMMAND ciot kernels)
set_tests_properties(ciot_kernels_lists PROPERTIES
  PASS_REGULAR_EXPRESSION "t2p_gemv_ref\tavailable\tsource=pq2_0\tmac=scalar\n.*ptq1_0_gemv_ref\tavailable\tsource=ptq1_0\tmac=scalar\n")
add_test(NAME ciot_kernels_lists_tq COMMAND ciot kernels)
set_tests_properties(ciot_kernels_lists_tq PROPERTIES
  PASS_REGULAR_EXPRESSION "tq1_0_gemv_ref\tavailable\tsource=tq1_0\tmac=scalar\ntq1_0_gemm_ref\tavailable\tsource=tq1_0\tmac=scalar\ntq2_0_gemv_ref\tavailable\tsource=tq2_0\tmac=scalar\ntq2_0_gemm_ref\tavailable\tsource=tq2_0\tmac=scalar\nt2p_tq2_gemv_ref\tavailable\tsource=tq2_0\tmac=scalar\n")
# ciot check itself (the oracle's cases are counted once, in test_oracle, which runs every kernel): exit 0
# and the summary last, the command's own path on the T2P kernels.
ciot_expect(ciot_check_quick 0 out "^[1-9][0-9]* passed, 0 failed, [0-9]+ skipped$" check --quick --kernel t2p_)
add_test(NAME ciot_run_no_args COMMAND ciot run)
set_tests_properties(ciot_run_no_args PROPERTIES WILL_FAIL TRUE)
