# Dispatch on x86 with features hidden by CIOT_CPU: the references take over when AVX2 is hidden, the
# VNNI kernels are reported unavailable (with what they need) when only AVX2 and FMA are left, the VBMI
# lookup-table kernels when VBMI is hidden, and the lookup kernels' oracle passes without VBMI; the token
# ops' AVX-512 F versions are skipped without AVX-512 F and exact with them. Each test's mask is
# intersected with the run's own CIOT_CPU (path_list_append: "run:test", kernels/cpu.h); a test whose
# expectation needs a feature the CPU (as masked) lacks is skipped with the reason (tests/needs_cpu.sh).
if(CIOT_ARCH STREQUAL "x86_64")
  set(needs_cpu ${CMAKE_CURRENT_SOURCE_DIR}/needs_cpu.sh)
  # x86_masked(name mask): the test's CIOT_CPU, kept within the run's
  function(x86_masked name mask)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT_MODIFICATION "CIOT_CPU=path_list_append:${mask}"
                                            SKIP_RETURN_CODE 77)
  endfunction()

  add_test(NAME x86_dispatch_none COMMAND ciot kernels)
  x86_masked(x86_dispatch_none none)
  set_tests_properties(x86_dispatch_none PROPERTIES
    PASS_REGULAR_EXPRESSION "t2p_gemv_avx2\tunavailable: needs avx2,fma" FAIL_REGULAR_EXPRESSION "avx2\tavailable")

  # what each kernel's loop multiplies with, and the batch a gemm's loop changes at, whatever the CPU has
  add_test(NAME x86_kernels_mac COMMAND ciot kernels)
  x86_masked(x86_kernels_mac none)
  set_tests_properties(x86_kernels_mac PROPERTIES PASS_REGULAR_EXPRESSION
    "tl2_gemv_avx2\t[^\n]*\tmac=lookup\n.*tl3_gemm_avx2\t[^\n]*\tmac=avx2_i16_b32\tmac_from=5:avx2_i16_b32\n.*tl16_gemm_avx2\t[^\n]*\tmac=lookup\tmac_from=16:avx2_i16_b32\n.*tl16_tq1_gemm_avx2\t[^\n]*\tmac=lookup\tmac_from=16:avx2_i16\n")

  add_test(NAME x86_dispatch_avx2_only COMMAND ${needs_cpu} avx2,fma $<TARGET_FILE:ciot> -- $<TARGET_FILE:ciot> kernels)
  x86_masked(x86_dispatch_avx2_only avx2,fma)
  set_tests_properties(x86_dispatch_avx2_only PROPERTIES
    PASS_REGULAR_EXPRESSION "t2p_gemv_avxvnni\tunavailable: needs avxvnni\t" FAIL_REGULAR_EXPRESSION "vnni\tavailable")

  # The oracle with AVX2 hidden, and with AVX2 and FMA only, is the whole native suite run again under
  # CIOT_CPU=none and CIOT_CPU=avx2,fma (scripts/test), not a test here.

  # AVX-512 VNNI without VBMI: needs a CPU with VNNI
  add_test(NAME x86_dispatch_no_vbmi COMMAND ${needs_cpu} avx2,fma,avx512vnni $<TARGET_FILE:ciot> -- $<TARGET_FILE:ciot> kernels)
  x86_masked(x86_dispatch_no_vbmi avx2,fma,avx512vnni)
  set_tests_properties(x86_dispatch_no_vbmi PROPERTIES
    PASS_REGULAR_EXPRESSION "tl3_gemv_avx512vbmi\tunavailable: needs avx512vbmi\t" FAIL_REGULAR_EXPRESSION "vbmi\tavailable")
  # without VBMI the AVX2 lookup kernel still runs exact and the VBMI one is skipped with its reason
  add_test(NAME x86_check_no_vbmi COMMAND ${needs_cpu} avx2,fma,avx512vnni $<TARGET_FILE:ciot> --
           $<TARGET_FILE:ciot> check --quick --kernel tl)
  x86_masked(x86_check_no_vbmi avx2,fma,avx512vnni)
  set_tests_properties(x86_check_no_vbmi PROPERTIES
    PASS_REGULAR_EXPRESSION "tl3_gemv_avx2 +[1-9][0-9]* passed, 0 failed.*tl3_gemv_avx512vbmi +skipped \\([0-9]+ cases\\): this CPU lacks avx512vbmi"
    FAIL_REGULAR_EXPRESSION "FAIL|[1-9][0-9]* failed")

  # the token ops' AVX-512 F versions (attention, deltanet): with AVX-512 F hidden the AVX2 one runs exact
  # and it is skipped with its reason; where the CPU has it, it runs exact (the oracle checks every version
  # it can run)
  foreach(op attention deltanet)
    add_test(NAME x86_check_${op}_no_avx512f COMMAND ${needs_cpu} avx2,fma $<TARGET_FILE:ciot> --
             $<TARGET_FILE:ciot> check --quick --kernel ${op})
    x86_masked(x86_check_${op}_no_avx512f avx2,fma)
    set_tests_properties(x86_check_${op}_no_avx512f PROPERTIES
      PASS_REGULAR_EXPRESSION "${op}_avx2 +[1-9][0-9]* passed, 0 failed.*${op}_avx512f +skipped: this CPU lacks avx512f"
      FAIL_REGULAR_EXPRESSION "FAIL|[1-9][0-9]* failed")
    add_test(NAME x86_check_${op}_avx512f COMMAND ${needs_cpu} avx2,fma,avx512f $<TARGET_FILE:ciot> --
             $<TARGET_FILE:ciot> check --quick --kernel ${op}_avx512f)
    set_tests_properties(x86_check_${op}_avx512f PROPERTIES SKIP_RETURN_CODE 77
      PASS_REGULAR_EXPRESSION "${op}_avx512f +[1-9][0-9]* passed, 0 failed"
      FAIL_REGULAR_EXPRESSION "FAIL|[1-9][0-9]* failed|skipped:")
  endforeach()
endif()
