/* The tuned-or-static kernel choice (choice.h). */
#include "choice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "registry.h"

static ciot_tuned *table;
static int count;
static char taken_on[16];

void ciot_choice_install(const ciot_tuned *t, int n, const char *date) {
    free(table);
    table = NULL, count = 0, taken_on[0] = 0;
    if (n <= 0 || !(table = malloc((size_t)n * sizeof *table))) return;
    memcpy(table, t, (size_t)n * sizeof *table);
    count = n;
    snprintf(taken_on, sizeof taken_on, "%s", date ? date : "");
}

int ciot_choice_installed(void) { return count; }
const ciot_tuned *ciot_choice_table(void) { return table; }

static int fits(const ciot_kernel *k, const ciot_choice_ask *a) {
    return k && k->layout->source == a->format && k->op == a->op && (!a->layout || k->layout == a->layout) &&
           !ciot_kernel_missing(k, a->cpu) && (!a->rows || ciot_layout_check(k->layout, a->rows, a->K) == CIOT_OK);
}

/* The measurement at the most threads at or below the ask's (the fewest above when none is) covering its batch. */
static const ciot_tuned *measured(const ciot_choice_ask *a) {
    const ciot_tuned *best = NULL;
    for (int i = 0; i < count; i++) {
        const ciot_tuned *t = &table[i];
        if (t->format != a->format || t->op != a->op || a->batch < t->batch_min || a->batch > t->batch_max) continue;
        const int below = t->threads <= a->threads, best_below = best && best->threads <= a->threads;
        if (!best || (below && (!best_below || t->threads > best->threads)) ||
            (!below && !best_below && t->threads < best->threads))
            best = t;
    }
    return best;
}

static const ciot_kernel *static_best(const ciot_choice_ask *a) {
    const ciot_kernel *best = NULL;
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        if (fits(k, a) && (!best || ciot_kernel_rank(k) > ciot_kernel_rank(best))) best = k;
    }
    return best;
}

ciot_choice ciot_kernel_choose(const ciot_choice_ask *a) {
    ciot_choice c = {NULL, NULL, ""};
    const ciot_tuned *t = measured(a);
    if (t && fits(t->kernel, a)) {
        c.kernel = t->kernel, c.tuned = t;
        snprintf(c.date, sizeof c.date, "%s", taken_on);
        return c;
    }
    c.kernel = static_best(a);
    return c;
}

const char *ciot_choice_why(const ciot_choice *c, char *buf, size_t len) {
    const ciot_tuned *t = c->tuned;
    if (!c->kernel) snprintf(buf, len, "no kernel runs on this CPU");
    else if (t && t->runner_up)
        snprintf(buf, len, "measured here, %s, %.1f against %.1f Gweights/s (%s)%s", c->date, t->gweights_s,
                 t->runner_up_gweights_s, t->runner_up->name, t->tie ? ", within noise: the static rank broke the tie" : "");
    else if (t) snprintf(buf, len, "measured here, %s, %.1f Gweights/s, the only kernel that ran", c->date, t->gweights_s);
    else
        snprintf(buf, len, "static rank %d: %s (no measurement of this machine covers it)", ciot_kernel_rank(c->kernel),
                 ciot_kernel_provenance(c->kernel));
    return buf;
}
