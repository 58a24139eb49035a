/* The token ops' part of the oracle (kernels/ops/token_ops.h): every version of every kind this CPU can run,
 * on drawn inputs at the model's sizes and at small and odd ones, against the reference bit for bit for
 * 1, 2, 3 and 7 parts. ciot_oracle_run calls it after the matvec kernels. */
#ifndef CIOT_ORACLE_OPS_H
#define CIOT_ORACLE_OPS_H

#include "oracle.h"

/* Adds its cases to res (passed, failed, skipped: the cases of versions this CPU lacks) and counts each
 * version x kind ("deltanet_avx2", which o->filter matches) as a kernel run or skipped. */
ciot_status ciot_oracle_ops_run(const ciot_oracle_opts *o, ciot_oracle_result *res);

#endif
