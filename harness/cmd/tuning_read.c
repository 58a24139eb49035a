/* The tuning file read back against this machine's key, and installed for the choice (tuning.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "json_read.h"
#include "opts.h"
#include "registry.h"
#include "tuning.h"

enum { MAX_BYTES = 1 << 20 };

/* The file's text (NUL-terminated, *len bytes); NULL when it cannot be read. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text = malloc(MAX_BYTES + 1);
    *len = text ? fread(text, 1, MAX_BYTES + 1, f) : 0;
    fclose(f);
    if (text && *len > MAX_BYTES) free(text), text = NULL;
    if (text) text[*len] = 0;
    return text;
}

/* One entry into *t, or a refusal into why. */
static ciot_status entry(const ciot_jv *e, int i, ciot_tuned *t, char *why, size_t why_len) {
    const char *file = ciot_jv_string(e, "file"), *op = ciot_jv_string(e, "op"), *name = ciot_jv_string(e, "kernel"),
               *up = ciot_jv_string(e, "runner_up");
    const ciot_kernel *k = name ? ciot_kernel_find(name) : NULL;
    if (!name) return ciot_error(CIOT_E_FORMAT, why, why_len, "choice %d names no kernel", i);
    if (!k) return ciot_error(CIOT_E_FORMAT, why, why_len, "choice %d names kernel '%s', which this build has not", i, name);
    char need[128];
    if (ciot_kernel_missing(k, ciot_cpu_features()))
        return ciot_error(CIOT_E_FORMAT, why, why_len, "choice %d names kernel %s, which needs %s: this CPU lacks it", i,
                          name, ciot_feature_list(ciot_kernel_missing(k, ciot_cpu_features()), need, sizeof need));
    const int gemm = op && !strcmp(op, "gemm");
    if (!file || strcmp(file, ciot_format_name(k->layout->source)) || !op || (k->op == CIOT_OP_GEMM) != gemm)
        return ciot_error(CIOT_E_FORMAT, why, why_len, "choice %d: kernel %s is no %s %s kernel", i, name,
                          file ? file : "?", op ? op : "?");
    *t = (ciot_tuned){k->layout->source, k->op, (int)ciot_jv_number(e, "batch_min", 0), (int)ciot_jv_number(e, "batch_max", 0),
                      (int)ciot_jv_number(e, "threads", 0), k, ciot_jv_number(e, "gweights_s", 0),
                      up ? ciot_kernel_find(up) : NULL, ciot_jv_number(e, "runner_up_gweights_s", 0),
                      ciot_jv_number(e, "tie", 0) != 0};
    if (t->batch_min < 1 || t->batch_max < t->batch_min || t->threads < 1)
        return ciot_error(CIOT_E_FORMAT, why, why_len, "choice %d: batches %d-%d at %d threads", i, t->batch_min,
                          t->batch_max, t->threads);
    return CIOT_OK;
}

/* The key's three parts against this machine's: which differs, in why. */
static ciot_status key_matches(const ciot_jv *doc, const ciot_tuning_key *key, char *why, size_t why_len) {
    static const char *const names[] = {"cpu", "features", "commit"};
    static const char *const words[] = {"measured on CPU '%s', this is '%s'", "measured with features %s, this CPU has %s",
                                        "measured by ciot commit %s, this is %s"};
    const char *here[] = {key->cpu, key->features, key->commit};
    for (int i = 0; i < 3; i++) {
        const char *v = ciot_jv_string(doc, names[i]);
        if (!v || strcmp(v, here[i])) return ciot_error(CIOT_E_FORMAT, why, why_len, words[i], v ? v : "?", here[i]);
    }
    return CIOT_OK;
}

static ciot_status read_doc(const ciot_jv *doc, const ciot_tuning_key *key, ciot_tuned *out, int max, int *n,
                            char *date, size_t date_len, char *why, size_t why_len) {
    const char *schema = ciot_jv_string(doc, "schema"), *d = ciot_jv_string(doc, "date");
    if (!schema || strcmp(schema, CIOT_TUNING_SCHEMA))
        return ciot_error(CIOT_E_FORMAT, why, why_len, "schema '%s', not %s", schema ? schema : "?", CIOT_TUNING_SCHEMA);
    ciot_status st = key_matches(doc, key, why, why_len);
    if (st != CIOT_OK) return st;
    const ciot_jv *choices = ciot_jv_get(doc, "choices");
    if (!choices || choices->type != CIOT_JV_ARRAY || choices->n > max)
        return ciot_error(CIOT_E_FORMAT, why, why_len, "no \"choices\" array of at most %d", max);
    for (int i = 0; i < choices->n; i++)
        if ((st = entry(&choices->items[i], i, &out[i], why, why_len)) != CIOT_OK) return st;
    *n = choices->n;
    snprintf(date, date_len, "%s", d ? d : "?");
    return CIOT_OK;
}

ciot_status ciot_tuning_read(const char *path, const ciot_tuning_key *key, ciot_tuned *out, int max, int *n,
                             char *date, size_t date_len, char *why, size_t why_len) {
    size_t len = 0;
    *n = 0;
    char *text = path && *path ? slurp(path, &len) : NULL, inner[256];
    if (!text) return why && why_len ? (void)(why[0] = 0) : (void)0, CIOT_E_IO;
    ciot_jv *doc = ciot_jv_parse(text, len, inner, sizeof inner);
    free(text);
    if (!doc) return ciot_error(CIOT_E_FORMAT, why, why_len, "tuning file %s is not JSON (%s): ignored", path, inner);
    const ciot_status st = read_doc(doc, key, out, max, n, date, date_len, inner, sizeof inner);
    ciot_jv_free(doc);
    if (st != CIOT_OK) ciot_error(st, why, why_len, "tuning file %s: %s: ignored (ciot tune measures this machine)", path, inner);
    return st;
}

int ciot_tuning_use(const char *command) {
    static ciot_tuned t[CIOT_TUNING_MAX];
    static int installed;
    static char last[1100];   /* the file read last: read once a process, so suite's parts say a refusal once */
    char path[1100], date[32], why[1400];
    ciot_tuning_key key;
    int n = 0;
    ciot_tuning_path(NULL, path, sizeof path);
    if (!path[0]) return 0;
    if (!strcmp(last, path)) return installed;
    snprintf(last, sizeof last, "%s", path);
    ciot_tuning_key_here(&key);
    const ciot_status st = ciot_tuning_read(path, &key, t, CIOT_TUNING_MAX, &n, date, sizeof date, why, sizeof why);
    if (st == CIOT_OK) ciot_choice_install(t, n, date);
    else if (why[0]) ciot_say(command, "%s", why);
    return installed = st == CIOT_OK ? n : 0;
}
