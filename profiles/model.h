/* Model op lists: the matvecs of one decoded token, read from a plain text file (profiles/README.md),
 * with the fuse groups a fused dispatch may run as one matvec. Errors are a status plus a message
 * naming the file and line; nothing is printed. */
#ifndef CIOT_MODEL_H
#define CIOT_MODEL_H

#include <stddef.h>
#include "kernel.h"
#include "status.h"

enum { CIOT_OP_NAME_MAX = 64, CIOT_MODEL_ERR_MAX = 1200 };

typedef struct {
    char name[CIOT_OP_NAME_MAX];
    int rows, K;
    int lm_head;            /* the flag lm_head: the output projection */
    int fuse;               /* fuse group index (a run of consecutive ops with the same fuse=NAME), -1: none */
    int line;               /* 1-based line in the file */
} ciot_model_op;

typedef struct {
    char name[128];         /* the file's stem, e.g. "bonsai-2-27b" */
    char path[1024];
    ciot_model_op *ops;
    int n_ops;
    int n_fuse;             /* fuse groups */
} ciot_model;

/* NAME -> <source tree>/profiles/NAME.ops, or a path to a file. CIOT_E_UNKNOWN when neither exists. */
ciot_status ciot_model_resolve(const char *name_or_file, char *path, size_t len);
/* Resolves, reads and parses. Errors: CIOT_E_UNKNOWN (no such model), CIOT_E_IO, CIOT_E_ARG (a bad
 * line), CIOT_E_NOMEM; err receives "FILE:LINE: what is wrong". */
ciot_status ciot_model_load(const char *name_or_file, ciot_model *m, char *err, size_t errlen);
/* Parses text as the contents of `file` (used in messages and for the model's name). */
ciot_status ciot_model_parse(const char *text, const char *file, ciot_model *m, char *err, size_t errlen);
void ciot_model_free(ciot_model *m);

/* CIOT_E_SHAPE when one of the first n_ops ops is a shape the layout cannot take; err names its line. */
ciot_status ciot_model_check(const ciot_model *m, int n_ops, const ciot_layout *l, char *err, size_t errlen);

/* Weights (rows x K summed) of the first n_ops ops, with or without the LM head. */
long long ciot_model_weights(const ciot_model *m, int n_ops, int with_lm_head);
/* The op's kind: its name after the last '.', e.g. "ffn_gate" for "blk.3.ffn_gate". */
const char *ciot_op_kind(const char *name);
/* The models in <source tree>/profiles, comma separated, into buf ("" when none). */
const char *ciot_model_list(char *buf, size_t len);

#endif
