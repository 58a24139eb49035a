/* Model op lists: the matvecs of one decoded token, read from a plain text file (profiles/README.md),
 * with the fuse groups a fused dispatch may run as one matvec. Errors are a status plus a message
 * naming the file and line; nothing is printed. */
#ifndef CIOT_MODEL_H
#define CIOT_MODEL_H

#include <stddef.h>
#include "kernel.h"
#include "status.h"
#include "token_kind.h"

enum { CIOT_OP_NAME_MAX = 64, CIOT_MODEL_ERR_MAX = 1200 };

typedef struct {
    char name[CIOT_OP_NAME_MAX];
    int rows, K;
    int lm_head;            /* the flag lm_head: the output projection */
    int fuse;               /* fuse group index (a run of consecutive ops with the same fuse=NAME), -1: none */
    int line;               /* 1-based line in the file (GGUF: the tensor's index + 1) */
    int format;             /* the weights' ciot_format (a GGUF tensor's type); -1 when the op list does not say */
    const void *data;       /* the op's real source bytes (a GGUF tensor inside the mapped file), NULL: none */
    size_t data_bytes;
    const ciot_kernel *kernel;  /* the kernel chosen for this op (by the caller, per format); NULL: the replay's */
} ciot_model_op;

struct ciot_gguf;

/* The kinds of a whole token's ops (profiles/README.md, "Whole-token lists"): the matvecs above, and the ops
 * between them, one per row of kernels/ops/token_kinds.def, each with the sizes its line gives (the kind's
 * descriptor names its keys: token_kind.h). */
enum { CIOT_TOKEN_NOTE_MAX = 256 };

typedef struct {
    char name[CIOT_OP_NAME_MAX];
    ciot_step_kind kind;
    int op;                     /* a matvec: its index in the model's ops; else -1 */
    int p[CIOT_STEP_PARAMS];     /* the kind's sizes, in the order of ciot_step_keys */
    int line;
} ciot_token_step;

/* A kind's keys as its op-list line writes them ("rows=N n=N", ...; "" for the matvecs). The kind's word:
 * ciot_step_kind_name, ciot_step_kind_of (token_kind.h). */
const char *ciot_step_keys(ciot_step_kind k);

typedef struct {
    char name[128];         /* the file's stem, e.g. "bonsai-2-27b" */
    char path[1024];
    ciot_model_op *ops;
    int n_ops;
    int n_fuse;             /* fuse groups */
    char left_out[1024];    /* GGUF: the tensors not replayed and why ("" when none) */
    struct ciot_gguf *gguf; /* GGUF: the mapped file the ops' data point into (closed by ciot_model_free) */
    ciot_token_step *token; /* the whole token in order (matvecs and the ops between them); NULL: matvecs only */
    int n_token;
    char token_note[CIOT_TOKEN_NOTE_MAX];   /* n_token == 0: why the source gives the matvecs only */
} ciot_model;

/* NAME -> <source tree>/profiles/NAME.ops, or a path to a file. CIOT_E_UNKNOWN when neither exists. */
ciot_status ciot_model_resolve(const char *name_or_file, char *path, size_t len);
/* Resolves, reads and parses: an op list, or a GGUF file (its name ends in .gguf, or it starts with the
 * GGUF magic), whose 2-D ternary tensors become the ops (model_gguf.c). Errors: CIOT_E_UNKNOWN (no such
 * model), CIOT_E_IO, CIOT_E_ARG (a bad line), CIOT_E_FORMAT (a malformed GGUF), CIOT_E_NOMEM; err
 * receives "FILE:LINE: what is wrong" or "FILE: what is wrong". */
ciot_status ciot_model_load(const char *name_or_file, ciot_model *m, char *err, size_t errlen);
/* Parses text as the contents of `file` (used in messages and for the model's name). */
ciot_status ciot_model_parse(const char *text, const char *file, ciot_model *m, char *err, size_t errlen);
void ciot_model_free(ciot_model *m);

/* CIOT_E_SHAPE when one of the first n_ops ops is a shape its layout cannot take (the op's kernel's
 * layout, or l for ops without a kernel of their own); err names its line. */
ciot_status ciot_model_check(const ciot_model *m, int n_ops, const ciot_layout *l, char *err, size_t errlen);
/* The layout an op is stored in: its own kernel's, else l. */
static inline const ciot_layout *ciot_op_layout(const ciot_model_op *op, const ciot_layout *l) {
    return op->kernel ? op->kernel->layout : l;
}
/* A GGUF model: the 2-D ternary tensors of g in block order (blk.N. prefixes, then the rest, the output
 * projection last and flagged lm_head), each op named after its tensor without ".weight"; ffn_gate +
 * ffn_up and attn_q + attn_k + attn_v of a block are placed together and fused when they share K and
 * format. The embedding (token_embd) is a row lookup, not a matvec: it is left out, and so are tensors of
 * other types and shapes; m->left_out says which. m takes over g. */
ciot_status ciot_model_from_gguf(struct ciot_gguf *g, const char *path, ciot_model *m, char *err, size_t errlen);
/* Parses the words of a whole-token op line "name KIND key=value..." (w[1] names a kind other than
 * matvec) into st; CIOT_E_ARG with "FILE:LINE: what is wrong" in err. */
ciot_status ciot_token_parse(char **w, int nw, const char *file, int line, ciot_token_step *st, char *err,
                             size_t errlen);
/* The whole token of a GGUF model from its metadata (model_gguf_token.c); leaves m->n_token 0 and says why
 * in m->token_note when the metadata does not describe its attention or recurrent state. */
ciot_status ciot_model_gguf_token(ciot_model *m, char *err, size_t errlen);
/* Writes the first n_ops ops as an op list (profiles/README.md), with each op's format as a comment. */
ciot_status ciot_model_write_ops(const ciot_model *m, int n_ops, const char *path, char *why, size_t why_len);

/* Weights (rows x K summed) of the first n_ops ops, with or without the LM head. */
long long ciot_model_weights(const ciot_model *m, int n_ops, int with_lm_head);
/* The op's kind: its name after the last '.', e.g. "ffn_gate" for "blk.3.ffn_gate". */
const char *ciot_op_kind(const char *name);
/* The models in <source tree>/profiles, comma separated, into buf ("" when none). */
const char *ciot_model_list(char *buf, size_t len);

#endif
