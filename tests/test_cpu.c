/* CPU feature parsing and CIOT_CPU masking: dispatch can be tested without the hardware. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "check.h"
#include "cpu_mask.h"
#include "cpu.h"
#include "kernel.h"
#include "registry.h"

/* The features a kernel's ISA (its name's last token, which is also its file's suffix and so its compile
 * flags: kernels/isa.def) needs at run time: a descriptor that forgets one would run on a CPU without it
 * (SIGILL). */
static void check_declared_features(const ciot_kernel *k) {
    const char *suffix = strrchr(k->name, '_');
    unsigned needs = 0;
    if (suffix && !strcmp(suffix + 1, "ref")) {
        CHECK(k->features == 0, "%s: a reference declares features 0x%x", k->name, k->features);
    } else if (suffix && ciot_isa_needs(suffix + 1, &needs)) {
        CHECK((k->features & needs) == needs, "%s declares features 0x%x, its ISA needs 0x%x", k->name, k->features, needs);
    } else {
        CHECK(0, "%s: its name ends in no suffix of kernels/isa.def", k->name);
    }
}

/* The ISA table itself: every word parses to its own bit, and a suffix needs its own feature. */
static void check_isa_table(void) {
#define ROW(id, word, suffix, flags, needs, probe, detect)                                                       \
    {                                                                                                           \
        unsigned m, n = 0;                                                                                      \
        CHECK(ciot_cpu_parse(#word, &m, NULL, NULL) == CIOT_OK && m == CIOT_F_##id, "%s parses to its bit", #word); \
        CHECK(!strcmp(ciot_feature_name(CIOT_F_##id), #word), "bit of %s named %s", #word, ciot_feature_name(CIOT_F_##id)); \
        CHECK(!#suffix[0] || (ciot_isa_needs(#suffix, &n) && (n & CIOT_F_##id) && n == (needs)),                \
              "suffix '%s' needs its own feature %s (0x%x)", #suffix, #word, n);                                \
    }
    CIOT_ISA(ROW)
#undef ROW
}

/* The family a kernel says its inner loop multiplies with (kernel.h: what its gemm's compute roof is) fits
 * what it declares it runs on: a reference is scalar, a lookup kernel reads a grouped lookup-table layout,
 * and a multiply family needs its feature. */
static void check_declared_mac(const ciot_kernel *k) {
#define NEEDS(id, suffix, family, instruction) [CIOT_MAC_##family] = CIOT_F_##id,
#define NEEDS_ROW(id, word, suffix, flags, needs, probe, detect) CIOT_ISA_PROBE(NEEDS, id, suffix, probe)
    static const unsigned family_needs[] = {CIOT_ISA(NEEDS_ROW)};
#undef NEEDS_ROW
#undef NEEDS
    if (k->features == 0) {
        CHECK(k->mac == CIOT_MAC_SCALAR, "%s: a reference declares mac %d, expected scalar", k->name, (int)k->mac);
    } else if (k->mac == CIOT_MAC_LOOKUP) {
        CHECK(k->layout->group_tiles > 1, "%s: a lookup kernel on %s, not a lookup-table layout", k->name,
              k->layout->name);
    } else {
        const int known = k->mac > CIOT_MAC_LOOKUP && k->mac < (int)(sizeof family_needs / sizeof *family_needs);
        CHECK(known && (k->features & family_needs[k->mac]) == family_needs[k->mac],
              "%s: mac %d is not a multiply family its features 0x%x have", k->name, (int)k->mac, k->features);
    }
}

/* The reference twin a kernel is checked against (kernel.h: a pointer the linker checks) is a registered
 * reference, its own twin, on the same bytes, activations and op. */
static void check_declared_twin(const ciot_kernel *k) {
    const ciot_kernel *t = k->reference;
    CHECK(ciot_kernel_find(t->name) == t, "%s: its twin %s is registered", k->name, t->name);
    CHECK(t->reference == t && t->features == 0, "%s: its twin %s is a reference", k->name, t->name);
    CHECK(t->layout == k->layout && t->act == k->act && t->op == k->op, "%s: its twin %s reads the same layout, "
          "activations and op", k->name, t->name);
}

/* A kernel's baseline (registry.h): a vector kernel of its layout and op on a strict subset of its features, and
 * no such kernel on fewer; none for a reference. */
static void check_baseline(const ciot_kernel *k) {
    const ciot_kernel *b = ciot_kernel_baseline(k);
    if (k->reference == k) {
        CHECK(!b, "%s: a reference has no baseline (%s)", k->name, b ? b->name : "");
        return;
    }
    if (!b) return;
    CHECK(b->reference != b && b->layout == k->layout && b->op == k->op && (b->features & k->features) == b->features &&
              b->features != k->features,
          "%s: its baseline %s is a vector kernel of its layout and op on a strict subset of its features", k->name, b->name);
    const ciot_kernel *fewer = NULL;
    for (int i = 0; i < ciot_kernel_count() && !fewer; i++) {
        const ciot_kernel *o = ciot_kernel_at(i);
        if (o->reference != o && o->layout == k->layout && o->op == k->op && (o->features & k->features) == o->features &&
            __builtin_popcount(o->features) < __builtin_popcount(b->features))
            fewer = o;
    }
    CHECK(!fewer, "%s: %s has fewer features than its baseline %s", k->name, fewer ? fewer->name : "", b->name);
}

/* The baselines the summary compares by, by name: NULL names a kernel without one. Kernels this build does not
 * register are skipped (the other architecture's). */
static void check_baseline_named(const char *kernel, const char *baseline) {
    const ciot_kernel *k = ciot_kernel_find(kernel);
    if (!k) return;
    const ciot_kernel *b = ciot_kernel_baseline(k);
    CHECK(baseline ? b && !strcmp(b->name, baseline) : !b, "%s: baseline %s, expected %s", kernel, b ? b->name : "none",
          baseline ? baseline : "none");
}

/* The ranking (kernels/x86/kernels.def, kernels/arm/kernels.def, the references in kernels/registry.c): every
 * kernel listed once with a rank, ranks unique within a source file and op, the references below every
 * vector kernel, and every provenance a reference's or a run folder's file or a section of a results/
 * document that exists, then its figure. */
static int same_group(const ciot_kernel *a, const ciot_kernel *b) {
    return a->layout->source == b->layout->source && a->op == b->op;
}

/* The anchor a Markdown heading's text gets: lower case, a space as '-', letters, digits, '-' and '_' kept,
 * anything else dropped ("Base-3 decode" -> "base-3-decode"). */
static void anchor_of(const char *text, char *out, size_t n) {
    size_t o = 0;
    for (const char *c = text; *c && *c != '\n' && o + 1 < n; c++) {
        if (*c >= 'A' && *c <= 'Z') out[o++] = (char)(*c - 'A' + 'a');
        else if ((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_') out[o++] = *c;
        else if (*c == ' ') out[o++] = '-';
    }
    out[o] = 0;
}

/* Whether the Markdown file at path has a heading (a line of '#'s and a space) whose anchor is anchor. */
static int has_heading(const char *path, const char *anchor) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[1024], a[1024];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        size_t h = strspn(line, "#");
        if (h == 0 || line[h] != ' ') continue;
        anchor_of(line + h + 1, a, sizeof a);
        found = !strcmp(a, anchor);
    }
    fclose(f);
    return found;
}

/* NULL when provenance p names something that exists, else what is wrong. A provenance is "WHERE: figure";
 * WHERE is results/FOLDER/FILE (or results/FOLDER/), FOLDER a run folder: a directory of results/ other than
 * log/, the diaries nothing cites; or results/DOC.md#ANCHOR, a section of a document of results/. */
static const char *provenance_fault(const char *p) {
    const char *colon = strstr(p, ": ");
    if (strncmp(p, "results/", 8) || !colon || !colon[2]) return "not \"results/...: figure\"";
    char where[512], path[1024];
    snprintf(where, sizeof where, "%.*s", (int)(colon - p), p);
    if (!strncmp(where, "results/log/", 12)) return "cites the diaries under results/log/";
    struct stat st;
    char *hash = strchr(where, '#');
    if (hash) {
        *hash = 0;
        snprintf(path, sizeof path, "%s/%s", CIOT_SOURCE_DIR, where);
        if (strchr(where + 8, '/') || stat(path, &st) || !S_ISREG(st.st_mode)) return "no such document in results/";
        return has_heading(path, hash + 1) ? NULL : "no heading of that anchor in the document";
    }
    const char *slash = strchr(where + 8, '/');
    if (!slash) return "names no run folder (results/FOLDER/...)";
    snprintf(path, sizeof path, "%s/%.*s", CIOT_SOURCE_DIR, (int)(slash - where), where);
    if (stat(path, &st) || !S_ISDIR(st.st_mode)) return "no such run folder";
    snprintf(path, sizeof path, "%s/%s", CIOT_SOURCE_DIR, where);
    if (slash[1] && (stat(path, &st) || !S_ISREG(st.st_mode))) return "no such file in the run folder";
    return NULL;
}

static void check_provenance(const ciot_kernel *k) {
    const char *p = ciot_kernel_provenance(k);
    if (!strcmp(p, CIOT_REFERENCE_PROVENANCE)) {
        CHECK(k->features == 0, "%s: a vector kernel with a reference's provenance", k->name);
        return;
    }
    const char *fault = provenance_fault(p);
    CHECK(!fault, "%s: provenance '%s': %s", k->name, p, fault ? fault : "");
}

/* The other architecture's .def, read as text (its kernels are not in this build's registry): every line's
 * provenance, the X(...) line's string. So each architecture's build checks both tables. */
static void check_other_def(void) {
#if defined(__x86_64__)
    const char *def = CIOT_SOURCE_DIR "/kernels/arm/kernels.def";
#else
    const char *def = CIOT_SOURCE_DIR "/kernels/x86/kernels.def";
#endif
    FILE *f = fopen(def, "r");
    CHECK(f != NULL, "%s cannot be read", def);
    if (!f) return;
    char line[2048];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        const char *x = strstr(line, "X(");
        const char *q = x ? strchr(x, '"') : NULL;
        const char *end = q ? strchr(q + 1, '"') : NULL;
        if (!end) continue;
        char p[1024];
        snprintf(p, sizeof p, "%.*s", (int)(end - q - 1), q + 1);
        const char *fault = provenance_fault(p);
        CHECK(!fault, "%s: provenance '%s': %s", def, p, fault ? fault : "");
        rows++;
    }
    fclose(f);
    CHECK(rows > 0, "%s: no X(name, rank, \"provenance\") line read", def);
}

/* The provenance check itself refuses what it must: a missing run folder, file, document or section, and the
 * diaries. */
static void check_provenance_refusals(void) {
    static const char *const bad[] = {
        "results/no-such-run-folder/summary.md: 1 GMAC/s",
        "results/20261201-205938-vm-00480923a447/no-such-file.md: 1 GMAC/s",
        "results/kernel-bounds.md#no-such-section: 1 GMAC/s",
        "results/no-such-document.md#tl16: 1 GMAC/s",
        "results/log/any.md: 1 GMAC/s",
        "results/kernel-bounds.md: 1 GMAC/s",
        "kernels/x86/kernels.def: 1 GMAC/s",
        "results/kernel-bounds.md#tl16",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(provenance_fault(bad[i]) != NULL, "provenance '%s' accepted", bad[i]);
    CHECK(!provenance_fault("results/kernel-bounds.md#base-3-decode: x"), "a section with '-' in its anchor refused");
}

static void check_ranking(void) {
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        CHECK(ciot_kernel_rank(k) > 0, "%s has no rank", k->name);
        check_provenance(k);
        for (int j = 0; j < i; j++) {
            const ciot_kernel *o = ciot_kernel_at(j);
            CHECK(strcmp(o->name, k->name), "%s is listed twice", k->name);
            if (!same_group(o, k)) continue;
            CHECK(ciot_kernel_rank(o) != ciot_kernel_rank(k), "%s and %s share rank %d (source %s)", o->name, k->name,
                  ciot_kernel_rank(k), ciot_format_name(k->layout->source));
            if (!o->features != !k->features) {
                const ciot_kernel *ref = o->features ? k : o, *vec = o->features ? o : k;
                CHECK(ciot_kernel_rank(ref) < ciot_kernel_rank(vec), "reference %s (rank %d) outranks %s (rank %d)",
                      ref->name, ciot_kernel_rank(ref), vec->name, ciot_kernel_rank(vec));
            }
        }
        /* every source file and op a kernel exists for has a choice on a CPU with no features */
        const ciot_kernel *none = ciot_kernel_best_source(k->layout->source, k->op, 0);
        CHECK(none && none->features == 0, "%s: its source file and op fall back to no reference", k->name);
    }
}

/* The choice under cpu is the highest-ranked kernel it can run, per layout (l), per source (l NULL) or, rows
 * non-zero, per source among the layouts that take rows x K. */
static void check_choice(const ciot_layout *l, ciot_format f, ciot_op op, unsigned cpu, int rows, int K) {
    const ciot_kernel *k = l ? ciot_kernel_best(l, op, cpu)
                             : rows ? ciot_kernel_best_shape(f, op, cpu, rows, K) : ciot_kernel_best_source(f, op, cpu);
    const ciot_kernel *top = NULL;
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *c = ciot_kernel_at(i);
        if ((l ? c->layout == l : c->layout->source == f) && c->op == op && !ciot_kernel_missing(c, cpu) &&
            (!rows || ciot_layout_check(c->layout, rows, K) == CIOT_OK) &&
            (!top || ciot_kernel_rank(c) > ciot_kernel_rank(top)))
            top = c;
    }
    CHECK(k == top, "%s %s, features 0x%x, shape %dx%d: chose %s, the highest-ranked is %s",
          l ? l->name : ciot_format_name(f), op == CIOT_OP_GEMV ? "gemv" : "gemm", cpu, rows, K, k ? k->name : "none",
          top ? top->name : "none");
}

/* ciot_cpu_is_amd against the kernel's own word for the vendor, where Linux gives one (x86 "vendor_id"); on
 * other CPUs (aarch64 under qemu included) it must say no. */
static void check_vendor(void) {
    char vendor[64] = "";
#if defined(__linux__)
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "vendor_id", 9) && strchr(line, ':')) {
            sscanf(strchr(line, ':') + 1, "%63s", vendor);
            break;
        }
    if (f) fclose(f);
#endif
#if defined(__x86_64__) || defined(__i386__)
    if (vendor[0])
        CHECK(ciot_cpu_is_amd() == !strcmp(vendor, "AuthenticAMD"), "AMD by cpuid %d, /proc/cpuinfo says %s", ciot_cpu_is_amd(),
              vendor);
#else
    CHECK(!ciot_cpu_is_amd(), "only an x86 CPU can be AMD's here");
#endif
}

int main(void) {
    check_vendor();
    unsigned m;
    const char *bad;
    int len;
    CHECK(ciot_cpu_parse("dotprod,i8mm", &m, &bad, &len) == CIOT_OK && m == (CIOT_F_DOTPROD | CIOT_F_I8MM), "parse list");
    CHECK(ciot_cpu_parse("none", &m, &bad, &len) == CIOT_OK && m == 0, "none");
    CHECK(ciot_cpu_parse("", &m, &bad, &len) == CIOT_OK && m == 0, "empty");
    CHECK(ciot_cpu_parse("avx2,sse9", &m, &bad, &len) == CIOT_E_UNKNOWN && len == 4, "unknown name reported");
    /* masks separated by ':' intersect, whichever order; a bad name in any of them is reported */
    CHECK(ciot_cpu_parse("avx2,fma:avx2,fma,avx512vnni", &m, &bad, &len) == CIOT_OK && m == (CIOT_F_AVX2 | CIOT_F_FMA),
          "two masks intersect");
    CHECK(ciot_cpu_parse("avx512vnni,avx2:avx2,fma", &m, &bad, &len) == CIOT_OK && m == CIOT_F_AVX2, "order does not matter");
    CHECK(ciot_cpu_parse("none:avx2,fma", &m, &bad, &len) == CIOT_OK && m == 0, "none intersected is none");
    CHECK(ciot_cpu_parse("avx2:avx2:avx2,neon", &m, &bad, &len) == CIOT_OK && m == CIOT_F_AVX2, "three masks");
    CHECK(ciot_cpu_parse("avx2:sse9,fma", &m, &bad, &len) == CIOT_E_UNKNOWN && len == 4 && !strncmp(bad, "sse9", 4),
          "unknown name in the second mask reported");
    const unsigned host = ciot_cpu_features();   /* this CPU as the run sees it: the test's own masks only take away */
    CHECK((host & ~ciot_cpu_detect()) == 0, "a mask never adds a feature");
    test_mask_cpu("none");
    CHECK(ciot_cpu_features() == 0, "CIOT_CPU=none hides every feature");
    for (int i = 0; i < ciot_kernel_count(); i++) {
        check_declared_features(ciot_kernel_at(i));
        check_declared_mac(ciot_kernel_at(i));
        check_declared_twin(ciot_kernel_at(i));
        check_baseline(ciot_kernel_at(i));
    }
    check_baseline_named("tl16_gemm_avx512vnni", "tl16_gemm_avx2"); /* not tl16_gemm_avxvnni: not a subset */
    check_baseline_named("tl16_gemm_avxvnni", "tl16_gemm_avx2");
    check_baseline_named("tl3_gemv_avx512vbmi", "tl3_gemv_avx2");
    check_baseline_named("tl2_gemm_avx512vbmi", "tl2_gemm_avx2");
    check_baseline_named("t2p_gemm_avx2", NULL);
    check_baseline_named("t2p_gemm_ref", NULL);
    check_baseline_named("t2p_gemm_i8mm", "t2p_gemm_neondot");
    check_baseline_named("tl2_gemv_sve", "tl2_gemv_neon");
    check_baseline_named("t2p_gemv_sve", NULL); /* its layout's NEON kernel needs dotprod, which SVE does not imply */
    for (int l = 0; l < ciot_layout_count(); l++) {
        const ciot_kernel *k = ciot_kernel_best(ciot_layout_at(l), CIOT_OP_GEMV, 0);
        CHECK(k && k->features == 0, "layout %s falls back to a reference", ciot_layout_at(l)->name);
        /* a gemm too (replay --batch runs every op of a model, whatever its shape) */
        const ciot_kernel *g = ciot_kernel_best(ciot_layout_at(l), CIOT_OP_GEMM, 0);
        CHECK(g && g->features == 0, "layout %s falls back to a gemm reference", ciot_layout_at(l)->name);
    }
    test_mask_cpu("neon,dotprod,avx2,fma");
    CHECK(ciot_cpu_features() == (host & (CIOT_F_NEON | CIOT_F_DOTPROD | CIOT_F_AVX2 | CIOT_F_FMA)), "mask keeps only listed");
    CHECK(!ciot_cpu_has_i8mm() && !ciot_cpu_has_avxvnni(), "masked features are off");
    test_unmask_cpu();
    CHECK(ciot_cpu_features() == host, "the run's own mask again");
    const unsigned hw = host;
#if defined(__aarch64__)
    CHECK(ciot_cpu_detect() & CIOT_F_NEON, "aarch64 always has NEON");
    CHECK(!ciot_cpu_has_avx2(), "no AVX2 on aarch64");
#elif defined(__x86_64__)
    CHECK(!ciot_cpu_has_neon() && !ciot_cpu_has_dotprod(), "no NEON on x86");
#endif
    /* the chosen kernel per layout is available */
    for (int l = 0; l < ciot_layout_count(); l++) {
        const ciot_kernel *k = ciot_kernel_best(ciot_layout_at(l), CIOT_OP_GEMV, hw);
        CHECK(k && !ciot_kernel_missing(k, hw), "a gemv is chosen for %s", ciot_layout_at(l)->name);
    }
    /* the choice per layout and per source is the highest-ranked runnable kernel, whatever the features */
    static const unsigned masks[] = {0, CIOT_F_AVX2 | CIOT_F_FMA, CIOT_F_NEON | CIOT_F_DOTPROD, ~0u};
    for (size_t mi = 0; mi < sizeof masks / sizeof *masks; mi++)
        for (int l = 0; l < ciot_layout_count(); l++)
            for (int op = CIOT_OP_GEMV; op <= CIOT_OP_GEMM; op++) {
                check_choice(ciot_layout_at(l), 0, (ciot_op)op, masks[mi], 0, 0);
                check_choice(NULL, ciot_layout_at(l)->source, (ciot_op)op, masks[mi], 0, 0);
                /* a shape every layout takes, and one the tiled and grouped layouts refuse */
                check_choice(NULL, ciot_layout_at(l)->source, (ciot_op)op, masks[mi], 4096, 8192);
                check_choice(NULL, ciot_layout_at(l)->source, (ciot_op)op, masks[mi], 2, 256);
            }
    check_ranking();
    check_other_def();
    check_provenance_refusals();
    check_isa_table();
    return check_summary();
}
