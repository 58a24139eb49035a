# The token ops (kernels/ops/): references against textbook formulas in double, the canonical exp and log,
# the checks and the choice of version. Their SIMD versions against the references: test_oracle.
ciot_test(test_token_ops ${CMAKE_CURRENT_LIST_DIR}/test_token_ops.c LINK ciot_kernels)
