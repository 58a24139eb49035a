/* embed: one token_embd row dequantized; checks, sizes and the reference (the formats' own dequantizers). */
#include "formats.h"
#include "fp16.h"
#include "ops_impl.h"
#include "ops_math.h"
#include "quant.h"

static const struct {
    const char *name;
    int block_values;
    size_t block_bytes;
} types[] = {
    [CIOT_EMBED_F32] = {"f32", 1, 4},
    [CIOT_EMBED_F16] = {"f16", 1, 2},
    [CIOT_EMBED_BF16] = {"bf16", 1, 2},
    [CIOT_EMBED_Q8_0] = {"q8_0", CIOT_QK8_0, sizeof(block_q8_0)},
    [CIOT_EMBED_PQ2_0] = {"pq2_0", CIOT_QK, sizeof(block_pq2_0)},
    [CIOT_EMBED_PTQ1_0] = {"ptq1_0", CIOT_QK, sizeof(block_ptq1_0)},
    [CIOT_EMBED_TQ1_0] = {"tq1_0", CIOT_QK_TQ, sizeof(block_tq1_0)},
    [CIOT_EMBED_TQ2_0] = {"tq2_0", CIOT_QK_TQ, sizeof(block_tq2_0)},
};
#define N_TYPES ((int)(sizeof types / sizeof types[0]))

static int known(ciot_embed_type t) { return (int)t >= 0 && (int)t < N_TYPES; }
int ciot_embed_block_values(ciot_embed_type t) { return known(t) ? types[t].block_values : 0; }
const char *ciot_embed_type_name(ciot_embed_type t) { return known(t) ? types[t].name : NULL; }
size_t ciot_embed_row_bytes(ciot_embed_type t, int n) {
    if (!known(t) || n < 1 || n % types[t].block_values) return 0;
    return (size_t)(n / types[t].block_values) * types[t].block_bytes;
}

ciot_status ciot_embed_check(const ciot_embed_args *a, char *why, size_t len) {
    if (!known(a->type)) return ciot_error(CIOT_E_ARG, why, len, "embed: unknown type %d", (int)a->type);
    if (!a->row || !a->out) return ciot_error(CIOT_E_ARG, why, len, "embed: a NULL pointer");
    if (!ciot_embed_row_bytes(a->type, a->n))
        return ciot_error(CIOT_E_SHAPE, why, len, "embed: n %d is not a positive multiple of %s's block (%d)", a->n,
                          types[a->type].name, types[a->type].block_values);
    return CIOT_OK;
}

int ciot_embed_phases(const ciot_embed_args *a) { return 1; }
size_t ciot_embed_scratch_bytes(const ciot_embed_args *a) { return 0; }

void ciot_embed_traffic(const ciot_embed_args *a, ciot_op_traffic *t) {
    *t = (ciot_op_traffic){.weights = ciot_embed_row_bytes(a->type, a->n), .act_written = (size_t)a->n * sizeof(float)};
}
size_t ciot_embed_bytes(const ciot_embed_args *a) {
    ciot_op_traffic t;
    ciot_embed_traffic(a, &t);
    return ciot_op_traffic_total(&t);
}

/* Blocks [lo, hi) of the row: each type's definition (kernels/formats.md, README-tq.md; bf16 is the top half
 * of an fp32). */
static void dequantize(const ciot_embed_args *a, long lo, long hi) {
    int bv = types[a->type].block_values;
    const char *src = (const char *)a->row + lo * types[a->type].block_bytes;
    float *out = a->out + lo * bv;
    int k = (int)((hi - lo) * bv);
    switch (a->type) {
    case CIOT_EMBED_F32: memcpy(out, src, (size_t)k * 4); break;
    case CIOT_EMBED_F16:
        for (int i = 0; i < k; i++) {
            uint16_t h;
            memcpy(&h, src + 2 * i, 2);
            out[i] = ciot_fp16_to_fp32(h);
        }
        break;
    case CIOT_EMBED_BF16:
        for (int i = 0; i < k; i++) {
            uint16_t h;
            memcpy(&h, src + 2 * i, 2);
            out[i] = ciot_ops_float((uint32_t)h << 16);
        }
        break;
    case CIOT_EMBED_Q8_0: ciot_dequantize_q8_0((const block_q8_0 *)src, out, k); break;
    case CIOT_EMBED_PQ2_0: ciot_dequantize_pq2_0((const block_pq2_0 *)src, out, k); break;
    case CIOT_EMBED_PTQ1_0: ciot_dequantize_ptq1_0((const block_ptq1_0 *)src, out, k); break;
    case CIOT_EMBED_TQ1_0: ciot_dequantize_tq1_0((const block_tq1_0 *)src, out, k); break;
    case CIOT_EMBED_TQ2_0: ciot_dequantize_tq2_0((const block_tq2_0 *)src, out, k); break;
    }
}

void ciot_embed_ref(const ciot_embed_args *a, int phase, int part, int parts) {
    long lo, hi;
    ciot_ops_share(a->n / types[a->type].block_values, part, parts, &lo, &hi);
    if (hi > lo) dequantize(a, lo, hi);
}
