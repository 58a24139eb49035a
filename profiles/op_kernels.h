/* The kernel for each op of a model, as a runtime would choose it: the best this CPU runs for the op's
 * format and shape, so a matrix a repacked layout cannot take keeps the plain path. */
#ifndef CIOT_OP_KERNELS_H
#define CIOT_OP_KERNELS_H

#include <stddef.h>
#include "kernel.h"
#include "model.h"
#include "status.h"

/* Each of the first n_ops ops' kernel (model.h) for op (gemv, or gemm for a batch above 1): named for the
 * format it reads, when given, else the choice for the op's format (PQ2_0 for op lists, which give none),
 * shape, batch and threads (choice.h: the tuning file's where it covers them, else the static rank). A fuse group whose kernels differ is split
 * where they do. CIOT_E_CPU with *why when an op has no kernel on this CPU, CIOT_E_ARG when named reads no
 * replayed op's format. */
ciot_status ciot_pick_op_kernels(ciot_model *m, int n_ops, ciot_op op, int batch, int threads,
                                 const ciot_kernel *named, char *why, size_t why_len);

#endif
