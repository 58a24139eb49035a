/* Fuzz target: the op-list parser (profiles/model.c) on any text. A parsed model keeps every promise
 * of model.h (shapes in range, fuse runs consecutive with one K and at most 2^30 rows, weight totals
 * that cannot overflow), and its sizes and checks run clean for every layout; a refusal is one line
 * naming the file and keeps nothing.
 * ciot-fuzz-seconds: 10 */
#include <stdint.h>
#include "fuzz.h"
#include "kernel.h"
#include "model.h"
#include "replay.h"

static const ciot_layout *const layouts[] = {&ciot_layout_pq2_0, &ciot_layout_t2x4, &ciot_layout_t2p,
                                              &ciot_layout_ptq1_0};

static void check_model(const ciot_model *m) {
    FUZZ_ASSERT(m->n_ops >= 1 && m->ops, "%d ops", m->n_ops);
    long long weights = 0, group_rows = 0;
    for (int i = 0; i < m->n_ops; i++) {
        const ciot_model_op *op = &m->ops[i];
        FUZZ_ASSERT(op->name[0] && strlen(op->name) < CIOT_OP_NAME_MAX, "op %d name", i);
        FUZZ_ASSERT(op->rows >= 1 && op->rows <= (1 << 30) && op->K >= 1 && op->K <= (1 << 30), "op %d %dx%d", i,
                    op->rows, op->K);
        FUZZ_ASSERT(op->fuse >= -1 && op->fuse < m->n_fuse, "op %d fuse %d of %d", i, op->fuse, m->n_fuse);
        FUZZ_ASSERT(i == 0 || op->line > m->ops[i - 1].line, "lines grow");
        const int joins = i > 0 && op->fuse >= 0 && op->fuse == m->ops[i - 1].fuse;
        if (joins) FUZZ_ASSERT(op->K == m->ops[i - 1].K, "a fuse run shares K");
        if (op->fuse >= 0 && !joins)
            for (int j = 0; j < i; j++) FUZZ_ASSERT(m->ops[j].fuse != op->fuse, "a fuse index starts one run only");
        group_rows = joins ? group_rows + op->rows : op->rows;
        FUZZ_ASSERT(group_rows <= (1 << 30), "fuse run rows %lld", group_rows);
        weights += (long long)op->rows * op->K;
    }
    FUZZ_ASSERT(weights <= (1LL << 62), "weights %lld", weights);
    FUZZ_ASSERT(ciot_model_weights(m, m->n_ops, 1) == weights, "weight total");
    char err[CIOT_MODEL_ERR_MAX];
    for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
        size_t full, group, ring;
        ciot_replay_sizes(m, m->n_ops, layouts[l], &full, &group, &ring);
        FUZZ_ASSERT(full >= group && ring >= group, "sizes %zu %zu %zu", full, group, ring);
        if (ciot_model_check(m, m->n_ops, layouts[l], err, sizeof err) != CIOT_OK)
            FUZZ_ASSERT(strstr(err, "fuzz.ops:") && !strchr(err, '\n'), "check message '%s'", err);
    }
    for (int i = 0; i < m->n_ops; i++) FUZZ_ASSERT(ciot_op_kind(m->ops[i].name)[0], "op kind");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = 0;
    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX] = "";
    const ciot_status st = ciot_model_parse(text, "fuzz.ops", &m, err, sizeof err);
    if (st == CIOT_OK) {
        check_model(&m);
        ciot_model_free(&m);
    } else {
        FUZZ_ASSERT(st == CIOT_E_ARG || st == CIOT_E_NOMEM, "status %d", st);
        FUZZ_ASSERT(!strncmp(err, "fuzz.ops", 8) && !strchr(err, '\n'), "message '%s'", err);
        FUZZ_ASSERT(m.ops == NULL && m.n_ops == 0, "nothing kept after an error");
    }
    free(text);
    return 0;
}
