/* Each op's kernel as a runtime would choose it (op_kernels.h). */
#include "op_kernels.h"

#include "cpu.h"
#include "choice.h"
#include "registry.h"

ciot_status ciot_pick_op_kernels(ciot_model *m, int n_ops, ciot_op op_kind, int batch, int threads,
                                 const ciot_kernel *named, char *why, size_t why_len) {
    const unsigned cpu = ciot_cpu_features();
    int named_used = 0;
    for (int i = 0; i < n_ops; i++) {
        ciot_model_op *op = &m->ops[i];
        const ciot_format f = op->format >= 0 ? (ciot_format)op->format : CIOT_FMT_PQ2_0;
        const ciot_choice_ask a = {f, NULL, op_kind, batch, threads, op->rows, op->K, cpu};
        const ciot_kernel *k = named && named->layout->source == f ? named : ciot_kernel_choose(&a).kernel;
        if (!k)
            return ciot_error(CIOT_E_CPU, why, why_len, "%s: no %s kernel for %s (%s, %dx%d) runs on this CPU",
                              m->path, op_kind == CIOT_OP_GEMM ? "gemm" : "gemv", op->name, ciot_format_name(f),
                              op->rows, op->K);
        named_used |= k == named;
        op->kernel = k;
        /* a fused matvec is one kernel's: a run whose kernels differ (one of its shapes kept the plain
         * path) is split where they do */
        if (i && op->fuse >= 0 && op->fuse == m->ops[i - 1].fuse && k != m->ops[i - 1].kernel) {
            const int old = op->fuse, fresh = m->n_fuse++;
            for (int j = i; j < n_ops && m->ops[j].fuse == old; j++) m->ops[j].fuse = fresh;
        }
    }
    if (named && !named_used)
        return ciot_error(CIOT_E_ARG, why, why_len,
                          "kernel %s reads %s, and %s has no %s tensor among the replayed ops", named->name,
                          ciot_format_name(named->layout->source), m->path, ciot_format_name(named->layout->source));
    return CIOT_OK;
}
