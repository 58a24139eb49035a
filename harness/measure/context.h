/* Run context: everything that changes the numbers (machine, compiler and flags, commit, date, load, LLC),
 * recorded in every result file. */
#ifndef CIOT_CONTEXT_H
#define CIOT_CONTEXT_H

#include "json.h"
#include "kernel.h"
#include "topo.h"

typedef struct {
    char host[128], cpu[160], features[128], detected[128], os[160], governor[64];
    char compiler[128], build_type[32], flags[512], commit[48], date[40];
    char loadavg_before[32], loadavg_after[32];    /* /proc/loadavg when collected / when finished */
    char llc_source[128];       /* where the LLC size came from, e.g. "hwloc: L3, 1 x 32 MiB" */
    size_t llc_bytes;           /* summed over instances; 0 when unknown */
    int llc_level;
    int llc_plausible;          /* ciot_llc_plausible() */
    size_t llc_rule_bytes;      /* the LLC the working-set rules take (rules.h) */
    char llc_rule[192];         /* ciot_llc_rule_note() */
    int dirty;                  /* 1: the work tree had uncommitted changes; -1: not a git checkout */
    ciot_topology topo;
} ciot_context;

/* The project's version (CMake's project VERSION). */
const char *ciot_version(void);
void ciot_context_collect(ciot_context *c);
/* Records what changes during a run: the load average after it (call before writing). */
void ciot_context_finish(ciot_context *c);
/* Writes the context's members into the object being written (call between begin and end object). */
void ciot_context_write(ciot_json *j, const ciot_context *c);
/* How threads were placed, for tables and JSON: "one thread per core (hwloc)", "3 threads on 2 cores:
 * cores shared", "not pinned", or "pinning failed". */
const char *ciot_pinning_note(int pin_requested, int pinned, int threads, char *buf, size_t len);
/* Warns on stderr ("ciot CMD: warning: ...") when threads exceed the cores; returns 1 when they do. */
int ciot_warn_oversubscribed(const char *cmd, int threads);
/* The flags a kernel's file was compiled with: the build's C flags plus its ISA's (by name suffix). */
const char *ciot_kernel_flags(const ciot_kernel *k, char *buf, size_t len);
/* "kernel_flags": {name: flags} for the kernels given (NULL-terminated list, or all when NULL). */
void ciot_context_write_kernel_flags(ciot_json *j, const ciot_kernel *const *kernels, int n);

#endif
