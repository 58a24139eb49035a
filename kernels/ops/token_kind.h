/* The token-op kinds as a table (token_kinds.def), one descriptor per kind as CIOT_KERNEL rows are for the
 * matvecs: its op-list word and keys, its checks, phases, scratch and bytes moved, the ruler its traffic is
 * judged against, its loop in every version, what it needs from the whole token's executor, and its oracle
 * cases. The executor (profiles/token_exec.c), the oracle (harness/check/oracle_ops.c) and the replay's
 * report walk it; none of them names a kind. */
#ifndef CIOT_TOKEN_KIND_H
#define CIOT_TOKEN_KIND_H

#include <stddef.h>
#include <stdint.h>
#include "token_ops.h"
#include "token_kinds.def"

/* The kinds of a whole token's steps: the matvecs, then one per row of token_kinds.def. */
#define CIOT_STEP_ENUM(ID, name) CIOT_STEP_##ID,
typedef enum { CIOT_STEP_MATVEC, CIOT_TOKEN_KINDS(CIOT_STEP_ENUM) CIOT_STEP_KINDS } ciot_step_kind;
#undef CIOT_STEP_ENUM
enum { CIOT_STEP_PARAMS = 4 };

/* The DRAM traffic mix of a kind, which picks the probe it is judged against (profiles/replay_ruler.h):
 * reads; a state read and written back in place; a copy from one buffer into another (non-temporal where
 * the version's copy_streams says so). */
typedef enum { CIOT_MIX_READ, CIOT_MIX_UPDATE, CIOT_MIX_COPY } ciot_token_mix;

/* What one step of a kind takes from the executor, at the sizes of its op-list line. */
typedef struct {
    size_t act_floats;      /* floats of each shared activation buffer it reads or writes */
    size_t param_bytes;     /* its own weights (drawn floats, or fp16 values where param_fp16) */
    int param_fp16;
    size_t state_bytes;     /* a recurrent state of its own, in the state region */
    size_t kv_bytes;        /* caches of its own at capacity positions, in the KV region */
    int table_rot;          /* > 0: a rope cos/sin table of that many rotated dims */
    int copies;             /* > 0: it snapshots the whole state region that many times, one phase run each */
} ciot_token_need;

/* Where a step's memory is: the activations (inputs A and B, output C), its params, state and caches, the
 * shared scratch, its table (positions from 0), the whole state region and its snapshot, argmax's result. */
typedef struct {
    float *a, *b, *c;
    unsigned char *params;
    float *state;
    uint16_t *kv;
    void *scratch;
    const float *table;
    void *states, *snapshot;
    size_t states_bytes;
    int capacity;           /* positions the caches hold */
    int *index;
    float *value;
} ciot_token_mem;

/* The args of any kind, held beside the kind they are for (each kind's file asserts that its args fit). */
typedef struct {
#ifdef __cplusplus
    alignas(16) unsigned char bytes[192];   /* g++ (mingw's, for bench) has no _Alignas in C++ */
#else
    _Alignas(16) unsigned char bytes[192];
#endif
} ciot_token_args;

/* One version's loop of a kind: phase `phase`, the part-th of parts. */
typedef void (*ciot_token_fn)(const void *args, int phase, int part, int parts);
/* The versions a kind may have a loop for (ciot_token_ops lists those built for this architecture). */
typedef enum { CIOT_OPV_REF, CIOT_OPV_AVX2, CIOT_OPV_AVX512F, CIOT_OPV_NEON, CIOT_OPV_COUNT } ciot_opv;

typedef struct ciot_op_cases ciot_op_cases;

typedef struct ciot_token_kind {
    const char *name;                       /* the op-list word, the JSON op_kind, the oracle's lines */
    const char *keys[CIOT_STEP_PARAMS];     /* its op-list keys, in the order of ciot_token_step.p */
    int type_key;                           /* the index of a key whose value is an embedding type, or -1 */
    ciot_token_mix mix;
    /* on the kind's args (ciot_<kind>_check, _phases, _scratch_bytes, _traffic) */
    ciot_status (*check)(const void *args, char *why, size_t len);
    int (*phases)(const void *args);
    size_t (*scratch)(const void *args);
    void (*traffic)(const void *args, ciot_op_traffic *t);
    ciot_token_fn run[CIOT_OPV_COUNT];      /* by version; NULL: the reference's loop */
    /* the executor: sizes the op-list line cannot have (one line in why, NULL: any); the args at those sizes
     * (pointers non-NULL, never read); the args pointed into mem; at context L (table: rope's, from 0) */
    ciot_status (*check_sizes)(const int *p, char *why, size_t len);
    void (*size)(const int *p, int capacity, void *args, ciot_token_need *need);
    void (*bind)(void *args, const int *p, const ciot_token_mem *mem);
    void (*at_context)(void *args, int L, const float *table);     /* NULL: no context */
    void (*set_prefetch)(void *args, size_t bytes);                 /* NULL: streams nothing */
    void (*copy_at)(void *args, int copy);                          /* need.copies: the args of copy `copy` */
    /* the oracle: draws every case of the kind (NULL: another kind's cases cover its loop) */
    void (*cases)(ciot_op_cases *c);
} ciot_token_kind;

#define CIOT_KIND_DECLARE(ID, name) extern const ciot_token_kind ciot_kind_##name;
CIOT_TOKEN_KINDS(CIOT_KIND_DECLARE)
#undef CIOT_KIND_DECLARE

/* The descriptor of kind k; NULL for the matvecs and out of range. */
const ciot_token_kind *ciot_token_kind_of(ciot_step_kind k);
/* The op-list word of k ("matvec" for the matvecs, "unknown" out of range), and the kind a word names
 * (-1: none). */
const char *ciot_step_kind_name(ciot_step_kind k);
int ciot_step_kind_of(const char *word);

/* Runs phase `phase` of args, the part-th of parts, with version v's loop of kind k. */
static inline void ciot_token_run(const ciot_token_kind *k, const struct ciot_token_ops *v, const void *args,
                                  int phase, int part, int parts) {
    const ciot_token_fn f = k->run[v->id] ? k->run[v->id] : k->run[CIOT_OPV_REF];
    f(args, phase, part, parts);
}

/* A kind's oracle cases are drawn through this (harness/check/oracle_ops.c implements it): a case is a
 * label, an arena of named regions (args hold offsets into it, ciot_op_off), the args, then the drawn
 * contents, then finish; size: its values, the case is left out above the oracle's cap. */
struct ciot_op_cases {
    char label[128];
    int small;              /* the oracle's cap is 1M values or less (the emulator, the sanitizers) */
    uint64_t seed;          /* the draws' state */
    size_t (*region)(ciot_op_cases *c, const char *name, size_t bytes, size_t skew);    /* its offset */
    void (*scratch)(ciot_op_cases *c, size_t offset);   /* that region is scratch: not compared */
    /* the args (offsets), and pointers fields of them (offsetof, -1 ends) that hold offsets */
    void (*args)(ciot_op_cases *c, const void *args, size_t size, const int *pointers);
    unsigned char *(*alloc)(ciot_op_cases *c);  /* the arena, filled with a sentinel; NULL: out of memory */
    void (*finish)(ciot_op_cases *c, long size);
    void *state;
};
#define ciot_op_off(x) ((void *)(uintptr_t)(x))

/* The oracle's value patterns: uniform, then values that push the ops' edges. */
typedef enum { CIOT_VAL_RANDOM, CIOT_VAL_WIDE, CIOT_VAL_ZERO, CIOT_VAL_TINY, CIOT_VAL_LARGE, CIOT_VAL_COUNT } ciot_val_pattern;
const char *ciot_val_pattern_name(ciot_val_pattern p);
float ciot_op_draw_uniform(uint64_t *s, float lo, float hi);
void ciot_op_draw_values(float *x, size_t n, uint64_t *s, ciot_val_pattern p, float lo, float hi);

#endif
