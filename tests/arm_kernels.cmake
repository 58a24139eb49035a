# Dispatch on the CPU model qemu emulates (CIOT_QEMU_CPU): what the model lacks is reported unavailable
# instead of running into SIGILL (max: dotprod + i8mm + SVE, SVE2 and SVE I8MM; cortex-a76: dotprod only,
# cortex-a72: neither), and the baseline-NEON kernels (*_neon: the lookup-table ones) are available on every
# model. The oracle over every kernel the model can run is test_oracle.
# "max,sve-default-vector-length=N" is max with an N-byte SVE vector (qemu's default is 64: 512 bits); the
# tests labelled `sve` are the ones whose outcome depends on the length: scripts/test runs them at 128, 256
# and 384 bits beside the whole suite at 512.
if(CIOT_ARCH STREQUAL "aarch64")
  add_test(NAME arm_kernels_dispatch COMMAND ciot kernels)
  if(CIOT_QEMU_CPU MATCHES "^max")
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
  # SVE: on max the SVE kernels are chosen where the registry ranks them first (the SMMLA gemms, the TL3
  # lookups; the SDOT gemvs stay NEON's, cheaper on V1's model) and `ciot info`
  # prints the length qemu was given; on the Cortex models every SVE kernel is unavailable and NEON is chosen
  if(CIOT_QEMU_CPU MATCHES "^max")
    set(sve_bits 512)
    if(CIOT_QEMU_CPU MATCHES "sve-default-vector-length=([0-9]+)")
      math(EXPR sve_bits "${CMAKE_MATCH_1} * 8")
    endif()
    add_test(NAME arm_sve_vector_length COMMAND ciot info)
    set_tests_properties(arm_sve_vector_length PROPERTIES LABELS sve
      PASS_REGULAR_EXPRESSION "features     [a-z0-9,]*,sve,sve2,svei8mm
sve vector   ${sve_bits} bits"
      FAIL_REGULAR_EXPRESSION "unavailable")
    add_test(NAME arm_sve_dispatch COMMAND ciot info)
    set_tests_properties(arm_sve_dispatch PROPERTIES LABELS sve
      PASS_REGULAR_EXPRESSION "pq2_0   gemv decode +t2p_gemv_neondot .*pq2_0   gemm any batch +t2p_gemm_svei8mm .*ptq1_0  gemv decode +tl3_gemv_sve2 .*tq1_0   gemv decode +tl3_tq1_gemv_sve2 .*tq2_0   gemv decode +t2p_tq2_gemv_neondot .*tq2_0   gemm any batch +t2p_tq2_gemm_svei8mm ")
    # an SVE core without dotprod and NEON i8mm: SVE alone (as A64FX) chooses the SVE lookups and gemv, with
    # SVE I8MM the SVE SMMLA gemms
    add_test(NAME arm_sve_dispatch_no_dotprod COMMAND ciot info)
    set_tests_properties(arm_sve_dispatch_no_dotprod PROPERTIES LABELS sve
      ENVIRONMENT_MODIFICATION "CIOT_CPU=path_list_append:neon,sve"
      PASS_REGULAR_EXPRESSION "pq2_0   gemv decode +tl2_gemv_sve .*pq2_0   gemm any batch +tl2_gemm_sve .*tq2_0   gemv decode +t2p_tq2_gemv_sve ")
    add_test(NAME arm_sve_dispatch_svei8mm COMMAND ciot info)
    set_tests_properties(arm_sve_dispatch_svei8mm PROPERTIES LABELS sve
      ENVIRONMENT_MODIFICATION "CIOT_CPU=path_list_append:neon,sve,svei8mm"
      PASS_REGULAR_EXPRESSION "pq2_0   gemm any batch +t2p_gemm_svei8mm .*tq2_0   gemm any batch +t2p_tq2_gemm_svei8mm ")
    # the SVE2 TL3 lookups cost less than the NEON ones on every SVE2 core's model (N2, V2 at 128 bits):
    # ranked above them, so with SVE2 present they are chosen, and without it NEON's are
    add_test(NAME arm_sve2_dispatch_tl3 COMMAND ciot info)
    set_tests_properties(arm_sve2_dispatch_tl3 PROPERTIES LABELS sve
      ENVIRONMENT_MODIFICATION "CIOT_CPU=path_list_append:neon,sve,sve2"
      PASS_REGULAR_EXPRESSION "ptq1_0  gemv decode +tl3_gemv_sve2 .*ptq1_0  gemm any batch +tl3_gemm_sve2 .*tq1_0   gemv decode +tl3_tq1_gemv_sve2 .*tq1_0   gemm any batch +tl3_tq1_gemm_sve2 "
      FAIL_REGULAR_EXPRESSION "(gemv|gemm)  tl3_[a-z0-9_]*_neon")
    add_test(NAME arm_sve_dispatch_tl3_no_sve2 COMMAND ciot info)
    set_tests_properties(arm_sve_dispatch_tl3_no_sve2 PROPERTIES LABELS sve
      ENVIRONMENT_MODIFICATION "CIOT_CPU=path_list_append:neon,dotprod,sve"
      PASS_REGULAR_EXPRESSION "ptq1_0  gemv decode +tl3_gemv_neon .*ptq1_0  gemm any batch +tl3_gemm_neon .*tq1_0   gemv decode +tl3_tq1_gemv_neon .*tq1_0   gemm any batch +tl3_tq1_gemm_neon "
      FAIL_REGULAR_EXPRESSION "(gemv|gemm)  tl3_[a-z0-9_]*_sve2")
    # every SVE kernel against the exact dot and its reference twin, at this length: the gemvs and the
    # gemms as two tests, so that ctest -j runs them side by side (a kernel is named <layout>_<op>_<isa>
    # in kernels/arm/kernels.def: every SVE kernel's name holds _gemv_sve or _gemm_sve)
    foreach(op gemv gemm)
      add_test(NAME arm_sve_oracle_${op} COMMAND ciot check --kernel _${op}_sve)
      set_tests_properties(arm_sve_oracle_${op} PROPERTIES LABELS sve
        PASS_REGULAR_EXPRESSION "[1-9][0-9]* passed, 0 failed, 0 skipped" FAIL_REGULAR_EXPRESSION " [1-9][0-9]* failed")
    endforeach()
  else()
    add_test(NAME arm_sve_unavailable COMMAND ciot kernels)
    set_tests_properties(arm_sve_unavailable PROPERTIES
      PASS_REGULAR_EXPRESSION "t2p_gemv_sve	unavailable: needs sve" FAIL_REGULAR_EXPRESSION "_sve[a-z0-9]*	available")
    add_test(NAME arm_sve_not_chosen COMMAND ciot info)
    set_tests_properties(arm_sve_not_chosen PROPERTIES
      PASS_REGULAR_EXPRESSION "chosen per source file" FAIL_REGULAR_EXPRESSION "_sve|sve vector")
  endif()
  # the base Advanced SIMD kernel runs on every model, cortex-a72 included
  add_test(NAME arm_kernels_neon_everywhere COMMAND ciot kernels)
  set_tests_properties(arm_kernels_neon_everywhere PROPERTIES PASS_REGULAR_EXPRESSION "tl3_tq1_gemv_neon\tavailable\t")
endif()
