/* The ops of a whole token between its matvecs, as op-list lines "name KIND key=value...": every kind
 * takes exactly its own keys (profiles/README.md, "Whole-token lists"), each a whole number. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "token_ops.h"

enum { MAX_SIZE = 1 << 30 };

const char *ciot_step_keys(ciot_step_kind k) {
    static char text[CIOT_STEP_KINDS][96];
    const ciot_token_kind *d = ciot_token_kind_of(k);
    if (!d) return "";
    if (!text[k][0])
        for (int i = 0; i < CIOT_STEP_PARAMS && d->keys[i]; i++) {
            const size_t n = strlen(text[k]);
            snprintf(text[k] + n, sizeof text[k] - n, "%s%s=N", i ? " " : "", d->keys[i]);
        }
    return text[k];
}

/* A whole number from 1 to 2^30, or for embed's type one of its names. */
static int parse_value(const ciot_token_kind *d, int key, const char *s, int *out) {
    if (key == d->type_key) {
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
    const ciot_token_kind *d = ciot_token_kind_of((ciot_step_kind)(k < 0 ? CIOT_STEP_MATVEC : k));
    if (!d) return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: '%s' is no op kind", file, line, w[1]);
    snprintf(st->name, sizeof st->name, "%s", w[0]);
    st->kind = (ciot_step_kind)k, st->op = -1, st->line = line;
    int seen[CIOT_STEP_PARAMS] = {0};
    for (int i = 2; i < nw; i++) {
        const char *eq = strchr(w[i], '=');
        int key = -1;
        for (int j = 0; eq && j < CIOT_STEP_PARAMS && d->keys[j]; j++)
            if (strlen(d->keys[j]) == (size_t)(eq - w[i]) && !strncmp(w[i], d->keys[j], (size_t)(eq - w[i])))
                key = j;
        if (key < 0)
            return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: %s: '%s' is not one of its keys (%s %s)", file, line,
                              w[0], w[i], d->name, ciot_step_keys((ciot_step_kind)k));
        if (seen[key]++)
            return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: %s: %s is given twice", file, line, w[0],
                              d->keys[key]);
        if (!parse_value(d, key, eq + 1, &st->p[key]))
            return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: %s: %s '%s' is not %s", file, line, w[0],
                              d->keys[key], eq + 1,
                              key == d->type_key ? "an embedding type (f32, f16, bf16, q8_0, pq2_0, ptq1_0, tq1_0, tq2_0)"
                                                               : "a whole number from 1 to 1073741824");
    }
    for (int j = 0; j < CIOT_STEP_PARAMS && d->keys[j]; j++)
        if (!seen[j])
            return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: %s: %s needs %s= (%s %s)", file, line, w[0],
                              d->name, d->keys[j], d->name, ciot_step_keys((ciot_step_kind)k));
    /* shapes the op cannot take: checked here so a replay never allocates them */
    char why[256];
    if (d->check_sizes && d->check_sizes(st->p, why, sizeof why) != CIOT_OK)
        return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: %s: %s", file, line, w[0], why);
    return CIOT_OK;
}
