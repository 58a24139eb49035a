/* The summary table `ciot suite` prints and writes as summary.md: per benchmark case the speed, the paired
 * probe, the intensity, the compute roof and the ratio to the row's roof (a gemv's: the read ceiling; a
 * gemm's: the roofline bound at its intensity; none for lookup and scalar gemms), the speed-up over the stock
 * kernel, and the flags. */
#ifndef CIOT_SUITE_SUMMARY_H
#define CIOT_SUITE_SUMMARY_H

#include <stdio.h>
#include "bench.h"
#include "context.h"

void ciot_suite_summary(FILE *f, const ciot_bench_row *rows, int n, const ciot_context *c, int quick);

#endif
