/* The ops of a whole token between its matvecs, as op-list lines "name KIND key=value...": every kind
 * takes exactly its own keys (profiles/README.md, "Whole-token lists"), each a whole number. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "token_ops.h"

enum { MAX_SIZE = 1 << 30 };

static const struct {
    const char *name;
    const char *keys[CIOT_STEP_PARAMS];
} kinds[CIOT_STEP_KINDS] = {
    [CIOT_STEP_MATVEC] = {"matvec", {NULL}},
    [CIOT_STEP_EMBED] = {"embed", {"rows", "n", "type"}},
    [CIOT_STEP_RMSNORM] = {"rmsnorm", {"rows", "n"}},
    [CIOT_STEP_DELTANET] = {"deltanet", {"k_heads", "v_heads", "head_dim", "conv"}},
    [CIOT_STEP_ATTENTION] = {"attention", {"q_heads", "kv_heads", "head_dim"}},
    [CIOT_STEP_ROPE] = {"rope", {"q_heads", "k_heads", "head_dim", "rot"}},
    [CIOT_STEP_GLU] = {"glu", {"n"}},
    [CIOT_STEP_ADD] = {"add", {"n"}},
    [CIOT_STEP_STATE_COPY] = {"state_copy", {"copies"}},
    [CIOT_STEP_ARGMAX] = {"argmax", {"n"}},
};

const char *ciot_step_kind_name(ciot_step_kind k) { return (unsigned)k < CIOT_STEP_KINDS ? kinds[k].name : "unknown"; }

const char *ciot_step_keys(ciot_step_kind k) {
    static char text[CIOT_STEP_KINDS][96];
    if ((unsigned)k >= CIOT_STEP_KINDS) return "";
    if (!text[k][0] && kinds[k].keys[0])
        for (int i = 0; i < CIOT_STEP_PARAMS && kinds[k].keys[i]; i++) {
            const size_t n = strlen(text[k]);
            snprintf(text[k] + n, sizeof text[k] - n, "%s%s=N", i ? " " : "", kinds[k].keys[i]);
        }
    return text[k];
}

int ciot_step_kind_of(const char *word) {
    for (int k = 0; k < CIOT_STEP_KINDS; k++)
        if (!strcmp(word, kinds[k].name)) return k;
    return -1;
}

/* A whole number from 1 to 2^30, or for embed's type one of its names. */
static int parse_value(ciot_step_kind k, int key, const char *s, int *out) {
    if (k == CIOT_STEP_EMBED && !strcmp(kinds[k].keys[key], "type")) {
        for (int t = 0; ciot_embed_type_name((ciot_embed_type)t); t++)
            if (!strcmp(s, ciot_embed_type_name((ciot_embed_type)t))) return *out = t, 1;
        return 0;
    }
    if (*s < '0' || *s > '9') return 0;
    errno = 0;
    char *end;
    const long long v = strtoll(s, &end, 10);
    if (*end || errno || v < 1 || v > MAX_SIZE) return 0;
    *out = (int)v;
    return 1;
}

ciot_status ciot_token_parse(char **w, int nw, const char *file, int line, ciot_token_step *st, char *err,
                             size_t errlen) {
    memset(st, 0, sizeof *st);
    const int k = ciot_step_kind_of(w[1]);
    if (k <= CIOT_STEP_MATVEC) return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: '%s' is no op kind", file, line, w[1]);
    snprintf(st->name, sizeof st->name, "%s", w[0]);
    st->kind = (ciot_step_kind)k, st->op = -1, st->line = line;
    int seen[CIOT_STEP_PARAMS] = {0};
    for (int i = 2; i < nw; i++) {
        const char *eq = strchr(w[i], '=');
        int key = -1;
        for (int j = 0; eq && j < CIOT_STEP_PARAMS && kinds[k].keys[j]; j++)
            if (strlen(kinds[k].keys[j]) == (size_t)(eq - w[i]) && !strncmp(w[i], kinds[k].keys[j], (size_t)(eq - w[i])))
                key = j;
        if (key < 0)
            return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: %s: '%s' is not one of its keys (%s %s)", file, line,
                              w[0], w[i], kinds[k].name, ciot_step_keys((ciot_step_kind)k));
        if (seen[key]++)
            return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: %s: %s is given twice", file, line, w[0],
                              kinds[k].keys[key]);
        if (!parse_value((ciot_step_kind)k, key, eq + 1, &st->p[key]))
            return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: %s: %s '%s' is not %s", file, line, w[0],
                              kinds[k].keys[key], eq + 1,
                              k == CIOT_STEP_EMBED && key == 2 ? "an embedding type (f32, f16, bf16, q8_0, pq2_0, ptq1_0, tq1_0, tq2_0)"
                                                               : "a whole number from 1 to 1073741824");
    }
    for (int j = 0; j < CIOT_STEP_PARAMS && kinds[k].keys[j]; j++)
        if (!seen[j])
            return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: %s: %s needs %s= (%s %s)", file, line, w[0],
                              kinds[k].name, kinds[k].keys[j], kinds[k].name, ciot_step_keys((ciot_step_kind)k));
    /* shapes the op cannot take: checked here so a replay never allocates them */
    const int *p = st->p;
    if (k == CIOT_STEP_DELTANET && p[1] % p[0])
        return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: %s: v_heads %d is not a multiple of k_heads %d", file, line,
                          w[0], p[1], p[0]);
    if (k == CIOT_STEP_ATTENTION && p[0] % p[1])
        return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: %s: q_heads %d is not a multiple of kv_heads %d", file,
                          line, w[0], p[0], p[1]);
    if (k == CIOT_STEP_ROPE && (p[3] > p[2] || p[3] % 2))
        return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: %s: rot %d is not an even number up to head_dim %d", file,
                          line, w[0], p[3], p[2]);
    return CIOT_OK;
}
