/* The Google Benchmark 1.7 flags ciot bench passes through, and the values each takes (bench_flags.h). */
#include "bench_flags.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "opts.h"
#include "registry.h"

typedef enum {
    GB_BOOL,      /* bare, or a word Google Benchmark reads as true or false */
    GB_CHOICE,    /* one of choices, exactly */
    GB_COLOR,     /* "auto" or a GB_BOOL word */
    GB_STRING,    /* any non-empty value */
    GB_KVPAIRS,   /* KEY=VALUE,...: keys non-empty, one '=' each, no empty item */
    GB_OWN,       /* set by ciot bench itself: refused with the note */
} gb_kind;

typedef struct {
    const char *name;
    gb_kind kind;
    const char *choices;   /* GB_CHOICE, GB_COLOR: '|'-separated values; GB_OWN: why it is refused */
} gb_flag;

static const char set_by_ciot[] = "is set by ciot bench itself (use --reps and --rep-ms)";

/* Google Benchmark 1.7.1's flags (its usage text; values as Debian's libbenchmark 1.7.1 reads them). */
static const gb_flag flags[] = {
    {"--benchmark_list_tests", GB_BOOL, NULL},
    {"--benchmark_filter", GB_STRING, NULL},
    {"--benchmark_min_time", GB_OWN, set_by_ciot},
    {"--benchmark_min_warmup_time", GB_OWN, set_by_ciot},
    {"--benchmark_repetitions", GB_OWN, set_by_ciot},
    {"--benchmark_enable_random_interleaving", GB_BOOL, NULL},
    {"--benchmark_report_aggregates_only", GB_BOOL, NULL},
    {"--benchmark_display_aggregates_only", GB_BOOL, NULL},
    {"--benchmark_format", GB_CHOICE, "console|json|csv"},
    {"--benchmark_out_format", GB_CHOICE, "console|json|csv"},
    {"--benchmark_out", GB_STRING, NULL},
    {"--benchmark_color", GB_COLOR, "auto|true|false|yes|no|on|off|1|0"},
    {"--benchmark_counters_tabular", GB_BOOL, NULL},
    {"--benchmark_context", GB_KVPAIRS, NULL},
    {"--benchmark_time_unit", GB_CHOICE, "ns|us|ms|s"},
    {"--benchmark_perf_counters", GB_OWN,
     "is not passed on: Google Benchmark would count the calling thread, while the kernels run on the "
     "pool's threads"},
};

/* The words Google Benchmark 1.7 reads as a boolean, whatever their case ("t", "n": first letters). */
static const char *const bool_words[] = {"true", "false", "yes", "no", "on", "off", "1", "0", "t", "f", "y", "n"};

static int is_bool_word(const char *v) {
    for (size_t i = 0; i < sizeof bool_words / sizeof bool_words[0]; i++)
        if (!strcasecmp(v, bool_words[i])) return 1;
    return 0;
}

/* KEY=VALUE,...: every item holds exactly one '=' after a non-empty key (VALUE may be empty). */
static int is_kvpairs(const char *v) {
    for (const char *p = v;;) {
        const char *end = p + strcspn(p, ","), *eq = memchr(p, '=', (size_t)(end - p));
        if (!eq || eq == p || memchr(eq + 1, '=', (size_t)(end - eq - 1))) return 0;
        if (!*end) return 1;
        p = end + 1;
    }
}

ciot_status ciot_bench_check_gb_flag(const char *arg, char *why, size_t why_len) {
    const char *eq = strchr(arg, '=');
    const size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const gb_flag *f = NULL;
    for (size_t i = 0; i < sizeof flags / sizeof flags[0] && !f; i++)
        if (strlen(flags[i].name) == len && !strncmp(flags[i].name, arg, len)) f = &flags[i];
    if (!f) {
        char word[65];
        const gb_flag *closest = NULL;
        snprintf(word, sizeof word, "%.*s", (int)(len < 64 ? len : 64), arg);
        for (size_t i = 0, best = 0; i < sizeof flags / sizeof flags[0]; i++) {
            const int d = ciot_name_near(word, flags[i].name, 0);
            if (d >= 0 && (!closest || (size_t)d < best)) best = (size_t)d, closest = &flags[i];
        }
        ciot_error(CIOT_E_ARG, why, why_len, "unknown option '%.*s' (%s%s%s)", (int)len, arg,
                   closest ? "did you mean " : "not a Google Benchmark 1.7 flag", closest ? closest->name : "", closest ? "?" : "");
        return CIOT_E_ARG;
    }
    const char *v = eq ? eq + 1 : NULL;
    int ok;
    switch (f->kind) {
    case GB_OWN:
        ciot_error(CIOT_E_ARG, why, why_len, "%s %s", f->name, f->choices);
        return CIOT_E_ARG;
    case GB_BOOL:
        ok = !v || is_bool_word(v);
        break;
    case GB_CHOICE:
        ok = v && ciot_choice_index(f->choices, v) >= 0;
        break;
    case GB_COLOR:
        ok = v && (!strcmp(v, "auto") || is_bool_word(v));
        break;
    case GB_KVPAIRS:
        ok = v && *v && is_kvpairs(v);
        break;
    default:
        ok = v && *v;
        break;
    }
    if (ok) return CIOT_OK;
    if (!v)
        ciot_error(CIOT_E_ARG, why, why_len, "%s needs a value (%s=%s)", f->name, f->name,
                 f->choices ? f->choices : f->kind == GB_KVPAIRS ? "KEY=VALUE,..." : "VALUE");
    else if (!*v)
        ciot_error(CIOT_E_ARG, why, why_len, "%s needs a non-empty value", f->name);
    else if (f->kind == GB_BOOL)
        ciot_error(CIOT_E_ARG, why, why_len, "%s '%s' is not one of true|false|yes|no|on|off|1|0", f->name, v);
    else if (f->kind == GB_CHOICE || f->kind == GB_COLOR)
        ciot_error(CIOT_E_ARG, why, why_len, "%s '%s' is not one of %s", f->name, v, f->choices);
    else
        ciot_error(CIOT_E_ARG, why, why_len, "%s '%s' is not a list KEY=VALUE,... (each KEY non-empty)", f->name, v);
    return CIOT_E_ARG;
}
