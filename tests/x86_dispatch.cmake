# Dispatch on x86 with features hidden by CIOT_CPU: the references take over when AVX2 is hidden, the
# VNNI kernels are reported unavailable (with what they need) when only AVX2 and FMA are left, the VBMI
# lookup-table kernels when VBMI is hidden, and the oracle passes in every case.
if(CIOT_ARCH STREQUAL "x86_64")
  add_test(NAME x86_dispatch_none COMMAND ciot kernels)
  set_tests_properties(x86_dispatch_none PROPERTIES ENVIRONMENT "CIOT_CPU=none"
    PASS_REGULAR_EXPRESSION "t2p_gemv_avx2\tunavailable: needs avx2,fma" FAIL_REGULAR_EXPRESSION "avx2\tavailable")
  add_test(NAME x86_dispatch_avx2_only COMMAND ciot kernels)
  set_tests_properties(x86_dispatch_avx2_only PROPERTIES ENVIRONMENT "CIOT_CPU=avx2,fma"
    PASS_REGULAR_EXPRESSION "t2p_gemv_avxvnni\tunavailable: needs avxvnni" FAIL_REGULAR_EXPRESSION "vnni\tavailable")
  ciot_expect(x86_check_references_only 0 out "^[1-9][0-9]* passed, 0 failed, [1-9][0-9]* skipped$" check --quick)
  set_tests_properties(x86_check_references_only PROPERTIES ENVIRONMENT "CIOT_CPU=none")
  ciot_expect(x86_check_avx2_only 0 out "^[1-9][0-9]* passed, 0 failed, [1-9][0-9]* skipped$" check --quick)
  set_tests_properties(x86_check_avx2_only PROPERTIES ENVIRONMENT "CIOT_CPU=avx2,fma")
  add_test(NAME x86_dispatch_no_vbmi COMMAND ciot kernels)
  set_tests_properties(x86_dispatch_no_vbmi PROPERTIES ENVIRONMENT "CIOT_CPU=avx2,fma,avx512vnni"
    PASS_REGULAR_EXPRESSION "tl3_gemv_avx512vbmi\tunavailable: needs avx512vbmi\t" FAIL_REGULAR_EXPRESSION "vbmi\tavailable")
  # without VBMI the AVX2 lookup kernel still runs exact and the VBMI one is skipped with its reason
  add_test(NAME x86_check_no_vbmi COMMAND ciot check --quick --kernel tl)
  set_tests_properties(x86_check_no_vbmi PROPERTIES ENVIRONMENT "CIOT_CPU=avx2,fma,avx512vnni"
    PASS_REGULAR_EXPRESSION "tl3_gemv_avx2 +[1-9][0-9]* passed, 0 failed.*tl3_gemv_avx512vbmi +skipped \\([0-9]+ cases\\): this CPU lacks avx512vbmi"
    FAIL_REGULAR_EXPRESSION "FAIL|[1-9][0-9]* failed")
endif()
