/* The table-driven option parser of every subcommand (opts.h). */
#include "opts.h"

#include <stdarg.h>
#include <string.h>
#include "cli.h"
#include "output.h"
#include "registry.h"

/* "ciot CMD: message[ (ciot CMD --help)]" on stderr, control characters escaped (ciot_verror). */
static void say(const char *command, int help, const char *fmt, va_list ap) {
    char line[CIOT_WHY_MAX];
    ciot_verror(CIOT_E_ARG, line, sizeof line, fmt, ap);
    if (help) fprintf(stderr, "ciot %s: %s (ciot %s --help)\n", command, line, command);
    else fprintf(stderr, "ciot %s: %s\n", command, line);
}

int ciot_opts_fail(const ciot_cmdline *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say(c->command, 1, fmt, ap);
    va_end(ap);
    return 2;
}

void ciot_say(const char *command, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    say(command, 0, fmt, ap);
    va_end(ap);
}

static const ciot_opt *find(const ciot_cmdline *c, const char *name, size_t len) {
    for (int i = 0; i < c->n_opts; i++)
        if (strlen(c->opts[i].name) == len && !strncmp(c->opts[i].name, name, len)) return &c->opts[i];
    return NULL;
}

/* "unknown option '--kernal' (did you mean --kernel?)": the nearest option, if near enough (ciot_name_near). */
static int unknown(const ciot_cmdline *c, const char *a, size_t len) {
    char word[65];
    snprintf(word, sizeof word, "%.*s", (int)(len < 64 ? len : 64), a);
    const ciot_opt *best = NULL;
    int best_d = -1;
    for (int i = 0; i < c->n_opts; i++) {
        const int d = ciot_name_near(word, c->opts[i].name, 0);
        if (d >= 0 && (best_d < 0 || d < best_d)) best_d = d, best = &c->opts[i];
    }
    if (!best) return ciot_opts_fail(c, "unknown option '%.*s'", (int)len, a);
    return ciot_opts_fail(c, "unknown option '%.*s' (did you mean %s?)", (int)len, a, best->name);
}

int ciot_choice_index(const char *choices, const char *v) {
    int i = 0;
    for (const char *p = choices; *p; i++) {
        const char *bar = strchr(p, '|');
        const size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (strlen(v) == len && !strncmp(p, v, len)) return i;
        if (!bar) break;
        p = bar + 1;
    }
    return -1;
}

static int in_range(const ciot_opt *o, double v) { return v >= o->lo && v <= o->hi; }

/* Clamps a double bound into int range for the integer parsers. */
static int ibound(double v) { return v < -2147483647.0 ? -2147483647 : v > 2147483647.0 ? 2147483647 : (int)v; }

/* Stores the value of one option; returns -1 on success, else the exit code after one line on stderr. */
static int store(const ciot_cmdline *c, const ciot_opt *o, const char *v) {
    char range[96];
    snprintf(range, sizeof range, "%.0f to %.0f", o->lo, o->hi);
    switch (o->kind) {
    case CIOT_OPT_FLAG:
        *(int *)o->dst = 1;
        return -1;
    case CIOT_OPT_STRING:
    case CIOT_OPT_LIST:
        if (!*v) return ciot_opts_fail(c, "%s needs a non-empty value", o->name);
        if (o->kind == CIOT_OPT_LIST && ciot_list_has_empty_item(v))
            return ciot_opts_fail(c, "%s '%s' has an empty name", o->name, v);
        *(const char **)o->dst = v;
        return -1;
    case CIOT_OPT_INT:
        if (ciot_parse_int(v, ibound(o->lo), ibound(o->hi), (int *)o->dst) != CIOT_OK)
            return ciot_opts_fail(c, "%s '%s' is not a whole number from %s", o->name, v, range);
        return -1;
    case CIOT_OPT_INT_LIST: {
        ciot_int_list *l = o->dst;
        int count;
        if (ciot_parse_int_list(v, ibound(o->lo), ibound(o->hi), l->v, CIOT_INT_LIST_MAX, &l->n) == CIOT_OK) return -1;
        /* one rule a message: the list's length only when every number is fine */
        if (ciot_parse_int_list(v, ibound(o->lo), ibound(o->hi), NULL, 0, &count) == CIOT_OK)
            return ciot_opts_fail(c, "%s '%s' lists %d numbers; at most %d are taken", o->name, v, count, CIOT_INT_LIST_MAX);
        return ciot_opts_fail(c, "%s '%s' is not a list of numbers each from %s (e.g. 1,2 or 1-4)", o->name, v, range);
    }
    case CIOT_OPT_SIZE: {
        size_t bytes;
        char lo[32], hi[32];
        if (ciot_parse_size(v, &bytes) != CIOT_OK || !in_range(o, (double)bytes)) {
            if (o->hi >= 1e15) /* no upper bound worth printing */
                return ciot_opts_fail(c, "%s '%s' is not a size of at least %s (e.g. 512M, 1G; K/M/G/T are binary)",
                                      o->name, v, ciot_format_bytes((size_t)o->lo, lo, sizeof lo));
            return ciot_opts_fail(c, "%s '%s' is not a size from %s to %s (e.g. 512M, 1G; K/M/G/T are binary)", o->name,
                                  v, ciot_format_bytes((size_t)o->lo, lo, sizeof lo),
                                  ciot_format_bytes((size_t)o->hi, hi, sizeof hi));
        }
        *(size_t *)o->dst = bytes;
        return -1;
    }
    case CIOT_OPT_DOUBLE: {
        double d;
        if (ciot_parse_double(v, &d) != CIOT_OK || !in_range(o, d))
            return ciot_opts_fail(c, "%s '%s' is not a number from %g to %g", o->name, v, o->lo, o->hi);
        *(double *)o->dst = d;
        return -1;
    }
    case CIOT_OPT_CHOICE: {
        const int i = ciot_choice_index(o->choices, v);
        if (i < 0) return ciot_opts_fail(c, "%s '%s' is not one of %s", o->name, v, o->choices);
        *(int *)o->dst = i;
        return -1;
    }
    case CIOT_OPT_SHAPE: {
        ciot_shape *s = o->dst;
        if (ciot_parse_shape(v, ibound(o->lo), ibound(o->hi), &s->rows, &s->K) != CIOT_OK)
            return ciot_opts_fail(c, "%s '%s' is not a shape RxK with both from %s (e.g. 32768x8192)", o->name, v, range);
        return -1;
    }
    }
    return ciot_opts_fail(c, "%s: internal error (unknown option kind)", o->name);
}

int ciot_opts_parse(const ciot_cmdline *c, int argc, char **argv, char **rest, int *n_rest) {
    int positional = 0, n = 0;
    if (n_rest) *n_rest = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            ciot_opts_usage(c, stdout);
            return 0;
        }
        if (c->pass_prefix && !strncmp(a, c->pass_prefix, strlen(c->pass_prefix))) {
            rest[n++] = argv[i];
            continue;
        }
        if (a[0] != '-' || !a[1]) {
            if (positional++ >= c->max_positional || !rest)
                return ciot_opts_fail(c, "unexpected argument '%s'", a);
            rest[n++] = argv[i];
            continue;
        }
        const char *eq = strchr(a, '=');
        const ciot_opt *o = find(c, a, eq ? (size_t)(eq - a) : strlen(a));
        if (!o) return unknown(c, a, eq ? (size_t)(eq - a) : strlen(a));
        const char *v = NULL;
        if (o->kind == CIOT_OPT_FLAG) {
            if (eq) return ciot_opts_fail(c, "%s takes no value", o->name);
        } else if (eq) {
            v = eq + 1;
        } else if (i + 1 < argc) {
            v = argv[++i];
        } else {
            return ciot_opts_fail(c, "%s needs a value%s%s%s", o->name, o->arg ? " (" : "", o->arg ? o->arg : "",
                                  o->arg ? ")" : "");
        }
        const int rc = store(c, o, v);
        if (rc >= 0) return rc;
        if (o->given) *o->given = 1;
    }
    if (n_rest) *n_rest = n;
    return -1;
}

void ciot_opts_usage(const ciot_cmdline *c, FILE *f) {
    const char *syn = c->synopsis ? c->synopsis : "[options]";
    fprintf(f, "usage: ciot %s%s%s\n", c->command, *syn ? " " : "", syn);
    if (c->about) fprintf(f, "%s\n", c->about);
    for (int i = 0; i < c->n_opts; i++) {
        const ciot_opt *o = &c->opts[i];
        char head[64];
        snprintf(head, sizeof head, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(f, "  %-22s ", head);
        for (const char *p = o->help ? o->help : ""; *p; p++) {
            fputc(*p, f);
            if (*p == '\n') fprintf(f, "  %-22s ", "");
        }
        fputc('\n', f);
    }
    fprintf(f, "  %-22s %s\n", "--help", "this text");
}

int ciot_distinct_paths(const char *command, const ciot_named_path *paths, int n) {
    char why[CIOT_WHY_MAX];
    if (ciot_distinct_paths_check(paths, n, why, sizeof why) == CIOT_OK) return -1;
    ciot_say(command, "%s", why);
    return 2;
}
