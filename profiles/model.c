/* The op-list parser: one op per line "name rows K [flags]", '#' starts a comment; flags lm_head and
 * fuse=GROUP. Every error names the file and the line. */
#include "model.h"
#include "registry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fileio.h"
#include "gguf.h"
#include "os.h"

enum { MAX_DIM = 1 << 30, MAX_TOKENS = 16 };
static const long long MAX_WEIGHTS = 1LL << 62;

static int is_file(const char *path) {
    ciot_os_file_info s;
    return ciot_os_file_info_of(path, 1, &s) == 0 && s.kind == CIOT_OS_REGULAR;
}

ciot_status ciot_model_resolve(const char *name_or_file, char *path, size_t len) {
    if (!name_or_file || !*name_or_file) return CIOT_E_ARG;
    if (is_file(name_or_file)) {
        snprintf(path, len, "%s", name_or_file);
        return CIOT_OK;
    }
    /* A bare name (no '/') is looked up among the profiles of the source tree. */
    if (!strchr(name_or_file, '/')) {
        snprintf(path, len, "%s/profiles/%s.ops", CIOT_SOURCE_DIR, name_or_file);
        if (is_file(path)) return CIOT_OK;
    }
    snprintf(path, len, "%s", name_or_file);
    return CIOT_E_UNKNOWN;
}

typedef struct {
    char *buf;
    size_t len, used;
} list_state;

/* Appends an op list's name ("name.ops" without ".ops"); nonzero when buf is full. */
static int add_profile(const char *name, void *arg) {
    list_state *s = arg;
    size_t n = strlen(name);
    if (n <= 4 || strcmp(name + n - 4, ".ops")) return 0;
    int w = snprintf(s->buf + s->used, s->len - s->used, "%s%.*s", s->used ? ", " : "", (int)(n - 4), name);
    if (w < 0 || (size_t)w >= s->len - s->used) return 1;
    s->used += (size_t)w;
    return 0;
}

const char *ciot_model_list(char *buf, size_t len) {
    if (!len) return buf;
    buf[0] = 0;
    list_state s = {buf, len, 0};
    ciot_os_list_dir(CIOT_SOURCE_DIR "/profiles", add_profile, &s);
    return buf;
}

const char *ciot_op_kind(const char *name) {
    const char *dot = strrchr(name, '.');
    return dot && dot[1] ? dot + 1 : name;
}

/* A whole positive decimal number no larger than MAX_DIM. */
static int parse_dim(const char *s, int *out) {
    if (*s < '0' || *s > '9') return 0;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end || errno || v < 1 || v > MAX_DIM) return 0;
    *out = (int)v;
    return 1;
}

static void model_name(const char *file, char *out, size_t len) {
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".ops")) n -= 4;
    snprintf(out, len, "%.*s", (int)n, base);
}

/* ", nor an op kind (rmsnorm, deltanet, ...)": every kind of the table, so a new one is named too. */
static void kind_words(char *buf, size_t len) {
    size_t used = (size_t)snprintf(buf, len, ", nor an op kind (");
    for (int k = CIOT_STEP_MATVEC + 1; k < CIOT_STEP_KINDS && used < len; k++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", k > CIOT_STEP_MATVEC + 1 ? ", " : "",
                                 ciot_step_kind_name((ciot_step_kind)k));
    if (used < len) snprintf(buf + used, len - used, ")");
}

/* Parses one line's words into op; returns CIOT_OK, or an error with the message in err. */
static ciot_status parse_op(char **w, int nw, const char *file, int line, ciot_model_op *op, const char **group,
                            char *err, size_t errlen) {
    if (nw < 3)
        return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: expected 'name rows K [flags]', found %d word%s", file, line,
                          nw, nw == 1 ? "" : "s");
    if (strlen(w[0]) >= CIOT_OP_NAME_MAX)
        return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: op name '%.20s...' is longer than %d characters", file, line,
                          w[0], CIOT_OP_NAME_MAX - 1);
    memset(op, 0, sizeof *op);
    snprintf(op->name, sizeof op->name, "%s", w[0]);
    op->line = line;
    op->fuse = -1;
    if (!parse_dim(w[1], &op->rows)) {
        char kinds[256] = "";
        if ((w[1][0] | 32) >= 'a' && (w[1][0] | 32) <= 'z') kind_words(kinds, sizeof kinds);
        return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: rows '%s' of %s is not a whole number from 1 to %d%s", file,
                          line, w[1], w[0], MAX_DIM, kinds);
    }
    if (!parse_dim(w[2], &op->K))
        return ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: K '%s' of %s is not a whole number from 1 to %d", file, line,
                          w[2], w[0], MAX_DIM);
    *group = NULL;
    for (int i = 3; i < nw; i++) {
        if (!strcmp(w[i], "lm_head")) op->lm_head = 1;
        else if (!strncmp(w[i], "fuse=", 5) && w[i][5]) *group = w[i] + 5;   /* compared whole, any length */
        else
            return ciot_error(CIOT_E_ARG, err, errlen,
                              "%s:%d: unknown flag '%s' (the flags are lm_head and fuse=GROUP)", file, line, w[i]);
    }
    return CIOT_OK;
}

/* Room for one more step of the whole token. */
static ciot_status token_push(ciot_model *m, int *cap, char *err, size_t errlen, const char *file) {
    if (m->n_token < *cap) return CIOT_OK;
    const int ncap = *cap ? 2 * *cap : 64;
    ciot_token_step *grown = realloc(m->token, (size_t)ncap * sizeof *grown);
    if (!grown) return ciot_error(CIOT_E_NOMEM, err, errlen, "%s: out of memory", file);
    m->token = grown, *cap = ncap;
    return CIOT_OK;
}

ciot_status ciot_model_parse(const char *text, const char *file, ciot_model *m, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    if (err && errlen) err[0] = 0;
    snprintf(m->path, sizeof m->path, "%s", file);
    model_name(file, m->name, sizeof m->name);
    char *copy = strdup(text);
    if (!copy) return ciot_error(CIOT_E_NOMEM, err, errlen, "%s: out of memory", file);
    int cap = 0, token_cap = 0, extra_kinds = 0;
    const char *prev_group = NULL, *group; /* point into copy, which outlives the loop */
    long long weights = 0, group_rows = 0;
    ciot_status st = CIOT_OK;
    int line = 0;
    for (char *p = copy, *next; p && st == CIOT_OK; p = next) {
        next = strchr(p, '\n');
        if (next) *next++ = 0;
        line++;
        char *hash = strchr(p, '#');
        if (hash) *hash = 0;
        char *w[MAX_TOKENS + 1], *save = NULL;
        int nw = 0;
        for (char *t = strtok_r(p, " \t\r", &save); t && nw <= MAX_TOKENS; t = strtok_r(NULL, " \t\r", &save))
            w[nw++] = t;
        if (nw == 0) continue;
        if (nw > MAX_TOKENS) {
            st = ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: more than %d words", file, line, MAX_TOKENS);
            break;
        }
        /* "name KIND key=value...": an op of the whole token between the matvecs */
        if (nw >= 2 && ciot_step_kind_of(w[1]) > CIOT_STEP_MATVEC) {
            if ((st = token_push(m, &token_cap, err, errlen, file)) != CIOT_OK) break;
            st = ciot_token_parse(w, nw, file, line, &m->token[m->n_token], err, errlen);
            if (st != CIOT_OK) break;
            m->n_token++;
            extra_kinds++;
            prev_group = NULL;      /* an op between two matvecs interrupts a fuse run */
            continue;
        }
        if (m->n_ops == cap) {
            int ncap = cap ? 2 * cap : 64;
            ciot_model_op *grown = realloc(m->ops, (size_t)ncap * sizeof *grown);
            if (!grown) {
                st = ciot_error(CIOT_E_NOMEM, err, errlen, "%s: out of memory", file);
                break;
            }
            m->ops = grown, cap = ncap;
        }
        ciot_model_op *op = &m->ops[m->n_ops];
        st = parse_op(w, nw, file, line, op, &group, err, errlen);
        op->format = -1;
        if (st != CIOT_OK) break;
        /* rows and K are at most 2^30 each: a sum past 2^62 weights is no model, and would overflow */
        weights += (long long)op->rows * op->K;
        if (weights > MAX_WEIGHTS) {
            st = ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: the ops up to %s hold more than 2^62 weights", file, line,
                            op->name);
            break;
        }
        /* A fuse group is a run of consecutive ops naming the same group; they share K. */
        if (group) {
            const ciot_model_op *before = m->n_ops ? &m->ops[m->n_ops - 1] : NULL;
            if (before && before->fuse >= 0 && prev_group && !strcmp(group, prev_group)) {
                if (before->K != op->K) {
                    st = ciot_error(CIOT_E_ARG, err, errlen,
                                    "%s:%d: %s (K %d) cannot be fused with %s (K %d, line %d): fused ops share K", file,
                                    line, op->name, op->K, before->name, before->K, before->line);
                    break;
                }
                /* the fused matvec's rows are one int, like any op's */
                if ((group_rows += op->rows) > MAX_DIM) {
                    st = ciot_error(CIOT_E_ARG, err, errlen, "%s:%d: fuse group '%s' adds up to more than %d rows",
                                    file, line, group, MAX_DIM);
                    break;
                }
                op->fuse = before->fuse;
            } else {
                op->fuse = m->n_fuse++;
                group_rows = op->rows;
            }
        }
        prev_group = group;
        if ((st = token_push(m, &token_cap, err, errlen, file)) != CIOT_OK) break;
        m->token[m->n_token++] = (ciot_token_step){.kind = CIOT_STEP_MATVEC, .op = m->n_ops, .line = line};
        snprintf(m->token[m->n_token - 1].name, CIOT_OP_NAME_MAX, "%s", op->name);
        m->n_ops++;
    }
    free(copy);
    if (st == CIOT_OK && !extra_kinds) {
        free(m->token);
        m->token = NULL, m->n_token = 0;
        snprintf(m->token_note, sizeof m->token_note, "the op list names matvecs only (no op of another kind)");
    }
    if (st == CIOT_OK && m->n_ops == 0)
        st = ciot_error(CIOT_E_ARG, err, errlen, "%s: no ops (expected lines 'name rows K [flags]')", file);
    if (st != CIOT_OK) ciot_model_free(m);
    return st;
}

/* A GGUF file: named .gguf, or starting with the magic. */
static int is_gguf(const char *path, FILE *f) {
    const size_t n = strlen(path);
    char magic[4];
    const int named = n > 5 && !strcmp(path + n - 5, ".gguf");
    const int magic_ok = fread(magic, 1, 4, f) == 4 && !memcmp(magic, "GGUF", 4);
    rewind(f);
    return named || magic_ok;
}

ciot_status ciot_model_load(const char *name_or_file, ciot_model *m, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    char path[1024], known[512];
    ciot_os_file_info sb;
    /* Something that exists but is no file (a directory, a FIFO, a device) is named as such, not looked up. */
    if (name_or_file && ciot_os_file_info_of(name_or_file, 1, &sb) == 0 && sb.kind != CIOT_OS_REGULAR)
        return ciot_error(CIOT_E_ARG, err, errlen, "%s: %s, not a regular file: --model takes an op-list file, a .gguf "
                                                   "file or a name (known: %s)", name_or_file,
                          ciot_file_kind(sb.kind), ciot_model_list(known, sizeof known));
    if (ciot_model_resolve(name_or_file, path, sizeof path) != CIOT_OK)
        return ciot_error(
            CIOT_E_UNKNOWN, err, errlen, "unknown model '%s': no such file, and no profiles/%s.ops (known: %s)",
            name_or_file ? name_or_file : "", name_or_file ? name_or_file : "", ciot_model_list(known, sizeof known));
    const int fd = ciot_open_regular(path, &sb);
    FILE *f = fd < 0 ? NULL : ciot_os_stream_of(fd);
    if (!f) {
        const int e = errno;
        if (fd >= 0) ciot_os_close(fd);
        return e ? ciot_error(CIOT_E_IO, err, errlen, "%s: cannot open: %s", path, strerror(e))
                 : ciot_error(CIOT_E_IO, err, errlen, "%s: %s, not a regular file", path, ciot_file_kind(sb.kind));
    }
    if (is_gguf(path, f)) {
        fclose(f);
        ciot_gguf *g;
        char why[512];
        const ciot_status st = ciot_gguf_open(path, &g, why, sizeof why);
        if (st != CIOT_OK) return ciot_error(st, err, errlen, "%s: %s", path, why);
        return ciot_model_from_gguf(g, path, m, err, errlen);
    }
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap);
    for (size_t got; text && (got = fread(text + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            char *grown = realloc(text, cap * 2);
            if (!grown) free(text);
            text = grown, cap *= 2;
        }
    }
    int read_error = ferror(f);
    fclose(f);
    if (!text) return ciot_error(CIOT_E_NOMEM, err, errlen, "%s: out of memory", path);
    if (read_error) {
        free(text);
        return ciot_error(CIOT_E_IO, err, errlen, "%s: read error", path);
    }
    text[n] = 0;
    if (memchr(text, 0, n)) {
        free(text);
        return ciot_error(CIOT_E_ARG, err, errlen, "%s: not a text file (contains NUL bytes)", path);
    }
    ciot_status st = ciot_model_parse(text, path, m, err, errlen);
    free(text);
    return st;
}

void ciot_model_free(ciot_model *m) {
    free(m->ops);
    free(m->token);
    m->token = NULL;
    m->n_token = 0;
    if (m->gguf) ciot_gguf_close(m->gguf);
    m->ops = NULL;
    m->gguf = NULL;
    m->n_ops = m->n_fuse = 0;
}

ciot_status ciot_model_check(const ciot_model *m, int n_ops, const ciot_layout *l, char *err, size_t errlen) {
    for (int i = 0; i < n_ops && i < m->n_ops; i++) {
        const ciot_model_op *op = &m->ops[i];
        const ciot_layout *ol = ciot_op_layout(op, l);
        char why[256];
        if (ciot_layout_check(ol, op->rows, op->K) != CIOT_OK) {
            if (!ciot_shape_refusal(&ol, 1, op->rows, op->K, why, sizeof why)) snprintf(why, sizeof why, "both must be positive");
            return ciot_error(CIOT_E_SHAPE, err, errlen, "%s:%d: %s is %dx%d: %s", m->path, op->line, op->name, op->rows,
                              op->K, why);
        }
    }
    return CIOT_OK;
}

long long ciot_model_weights(const ciot_model *m, int n_ops, int with_lm_head) {
    long long w = 0;
    for (int i = 0; i < n_ops && i < m->n_ops; i++)
        if (with_lm_head || !m->ops[i].lm_head) w += (long long)m->ops[i].rows * m->ops[i].K;
    return w;
}
