# Dispatch on the CPU model qemu emulates (CIOT_QEMU_CPU): what the model lacks is reported unavailable
# instead of running into SIGILL (max: dotprod + i8mm, cortex-a76: dotprod only, cortex-a72: neither), and
# the baseline-NEON kernels (*_neon: the lookup-table ones) are available on every model.
# The oracle over every kernel the model can run is test_oracle.
if(CIOT_ARCH STREQUAL "aarch64")
  add_test(NAME arm_kernels_dispatch COMMAND ciot kernels)
  if(CIOT_QEMU_CPU STREQUAL "max")
    set_tests_properties(arm_kernels_dispatch PROPERTIES
      PASS_REGULAR_EXPRESSION "t2p_gemm_i8mm\tavailable" FAIL_REGULAR_EXPRESSION "unavailable")
  elseif(CIOT_QEMU_CPU STREQUAL "cortex-a76")
    set_tests_properties(arm_kernels_dispatch PROPERTIES
      PASS_REGULAR_EXPRESSION "t2p_gemm_i8mm\tunavailable: needs i8mm" FAIL_REGULAR_EXPRESSION "neon(dot)?\tunavailable")
  elseif(CIOT_QEMU_CPU STREQUAL "cortex-a72")
    set_tests_properties(arm_kernels_dispatch PROPERTIES
      PASS_REGULAR_EXPRESSION "tl2_gemv_neon\tavailable\t.*t2p_gemv_neondot\tunavailable: needs dotprod\t.*tl3_gemv_neon\tavailable\t"
      FAIL_REGULAR_EXPRESSION "neondot\tavailable|neon\tunavailable")
  endif()
  # the base Advanced SIMD kernel runs on every model, cortex-a72 included
  add_test(NAME arm_kernels_neon_everywhere COMMAND ciot kernels)
  set_tests_properties(arm_kernels_neon_everywhere PROPERTIES PASS_REGULAR_EXPRESSION "tl3_tq1_gemv_neon\tavailable\t")
endif()
