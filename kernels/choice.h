/* The one choice of a kernel per source file, op, batch and thread count: a measurement of this machine
 * (`ciot tune`'s tuning file, installed here by the command that read it) when one covers the case, else the
 * registry's static rank (registry.h). Every command that chooses a kernel asks ciot_kernel_choose. */
#ifndef CIOT_CHOICE_H
#define CIOT_CHOICE_H

#include <stddef.h>
#include "kernel.h"

/* One measured winner: source file, op, the activation batches it covers and the thread count it was timed
 * at, its median Gweights/s and the runner-up's, and whether the two were within noise (a tie the static
 * rank broke). */
typedef struct {
    ciot_format format;
    ciot_op op;
    int batch_min, batch_max;      /* gemv: 1, 1 */
    int threads;
    const ciot_kernel *kernel;
    double gweights_s;
    const ciot_kernel *runner_up;  /* NULL when it ran alone */
    double runner_up_gweights_s;
    int tie;
} ciot_tuned;

/* The measurements in force (copied; n 0 clears them) and the date they were taken ("2026-12-07"). */
void ciot_choice_install(const ciot_tuned *t, int n, const char *date);
/* The count installed, and the entries (NULL when none). */
int ciot_choice_installed(void);
const ciot_tuned *ciot_choice_table(void);

typedef struct {
    ciot_format format;
    const ciot_layout *layout;     /* NULL: any layout of the format */
    ciot_op op;
    int batch, threads;            /* batch 1 for a gemv; threads >= 1 */
    int rows, K;                   /* 0, 0: any shape; else the kernel's layout must take rows x K */
    unsigned cpu;                  /* ciot_cpu_features() */
} ciot_choice_ask;

typedef struct {
    const ciot_kernel *kernel;     /* NULL when no kernel of the ask runs on this CPU */
    const ciot_tuned *tuned;       /* the measurement it rests on; NULL: the static rank */
    char date[16];
} ciot_choice;

/* The kernel for the ask: the measured winner at the nearest measured thread count (the most at or below
 * threads) whose batches cover the ask's, when it runs here and fits the ask; else the highest static rank. */
ciot_choice ciot_kernel_choose(const ciot_choice_ask *a);
/* The why of a choice in one line: "measured here, DATE, F against F Gweights/s (RUNNER)" or "static rank R:
 * PROVENANCE (no measurement of this machine covers it)". */
const char *ciot_choice_why(const ciot_choice *c, char *buf, size_t len);

#endif
