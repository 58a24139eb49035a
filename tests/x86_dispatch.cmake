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
  add_test(NAME x86_check_references_only COMMAND ciot check --quick)
  set_tests_properties(x86_check_references_only PROPERTIES ENVIRONMENT "CIOT_CPU=none"
    PASS_REGULAR_EXPRESSION "8 kernels checked, [0-9]+ skipped\n[1-9][0-9]* passed, 0 failed")
  add_test(NAME x86_check_avx2_only COMMAND ciot check --quick)
  set_tests_properties(x86_check_avx2_only PROPERTIES ENVIRONMENT "CIOT_CPU=avx2,fma"
    PASS_REGULAR_EXPRESSION "[1-9][0-9]* passed, 0 failed")
  add_test(NAME x86_dispatch_no_vbmi COMMAND ciot kernels)
  set_tests_properties(x86_dispatch_no_vbmi PROPERTIES ENVIRONMENT "CIOT_CPU=avx2,fma,avx512vnni"
    PASS_REGULAR_EXPRESSION "tl3_gemv_avx512vbmi\tunavailable: needs avx512vbmi\t" FAIL_REGULAR_EXPRESSION "vbmi\tavailable")
  add_test(NAME x86_check_no_vbmi COMMAND ciot check --quick --kernel tl)
  set_tests_properties(x86_check_no_vbmi PROPERTIES ENVIRONMENT "CIOT_CPU=avx2,fma,avx512vnni"
    PASS_REGULAR_EXPRESSION "tl3_gemv_avx2 +[1-9][0-9]* passed, 0 failed.*tl3_gemv_avx512vbmi +skipped: this CPU lacks avx512vbmi"
    FAIL_REGULAR_EXPRESSION "FAIL|[1-9][0-9]* failed")
endif()
