/* One option parser for every subcommand: a table of options, each with its kind and destination. Values
 * are parsed in one place (cli.c: numbers, sizes, lists, shapes, all strict), and every error is one line
 * on stderr naming the option, with exit code 2. "--name value" and "--name=value" are both accepted. */
#ifndef CIOT_OPTS_H
#define CIOT_OPTS_H

#include <stddef.h>
#include <stdio.h>
#include "distinct_paths.h"

typedef enum {
    CIOT_OPT_FLAG,      /* no value: *(int *)dst = 1 */
    CIOT_OPT_STRING,    /* *(const char **)dst, non-empty */
    CIOT_OPT_LIST,      /* *(const char **)dst, comma-separated names, none empty ("a,b"; not "a," or "a,,b") */
    CIOT_OPT_INT,       /* *(int *)dst in [lo, hi] */
    CIOT_OPT_INT_LIST,  /* ciot_int_list *dst: "1,2" or ranges "1-4", each in [lo, hi] */
    CIOT_OPT_SIZE,      /* *(size_t *)dst in [lo, hi] bytes: 512M, 1G, 2T (binary) */
    CIOT_OPT_DOUBLE,    /* *(double *)dst, finite, in [lo, hi] */
    CIOT_OPT_CHOICE,    /* *(int *)dst = index of the value in choices, "static|chunks|fused|all" */
    CIOT_OPT_SHAPE,     /* ciot_shape *dst: RxK, each in [lo, hi] */
} ciot_opt_kind;

enum { CIOT_INT_LIST_MAX = 256 };
typedef struct {
    int v[CIOT_INT_LIST_MAX];
    int n;
} ciot_int_list;

typedef struct {
    int rows, K;
} ciot_shape;

typedef struct {
    const char *name;       /* "--threads" */
    ciot_opt_kind kind;
    void *dst;
    double lo, hi;          /* range of INT, INT_LIST, SIZE, DOUBLE, SHAPE values */
    const char *choices;    /* CHOICE: the values, '|'-separated */
    const char *arg;        /* the value's placeholder in the usage, e.g. "LIST" */
    const char *help;       /* usage text; '\n' continues on an indented line */
    int *given;             /* optional: set to 1 when the option appears */
} ciot_opt;

typedef struct {
    const char *command;        /* "bench": messages read "ciot bench: ..." */
    const char *synopsis;       /* after "usage: ciot bench ", e.g. "[options]" */
    const char *about;          /* printed before the options (may be NULL) */
    const ciot_opt *opts;
    int n_opts;
    const char *pass_prefix;    /* options with this prefix are left to the caller ("--benchmark_") */
    int max_positional;         /* bare arguments allowed (e.g. 1 for FILE) */
} ciot_cmdline;

/* Parses argv[1..argc-1]. Bare arguments and passed-through options are collected, in order, into
 * rest[0 .. *n_rest - 1] (rest must hold argc entries; NULL when none are allowed). Returns -1 when the
 * command should run, 0 after --help (usage printed on stdout), 2 after an error (one line on stderr). */
int ciot_opts_parse(const ciot_cmdline *c, int argc, char **argv, char **rest, int *n_rest);
void ciot_opts_usage(const ciot_cmdline *c, FILE *f);
/* Index of v among the '|'-separated choices ("static|chunks"), -1 when absent. */
int ciot_choice_index(const char *choices, const char *v);
/* One line "ciot CMD: message (ciot CMD --help)" on stderr; returns 2, the exit code for bad input. */
int ciot_opts_fail(const ciot_cmdline *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line "ciot CMD: message" on stderr. Like ciot_opts_fail, the message's control characters are
 * escaped (ciot_quote), so the file names and values it names cannot split it. */
void ciot_say(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The check as a command makes it: -1 when the paths are distinct, else 2 after one line on stderr,
 * "ciot COMMAND: --out w.bin is the same file as --weights w.bin". */
int ciot_distinct_paths(const char *command, const ciot_named_path *paths, int n);

#endif
