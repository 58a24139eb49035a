/* Run context: everything that changes the numbers (machine, compiler, commit, date), recorded in
 * every result file. */
#ifndef CIOT_CONTEXT_H
#define CIOT_CONTEXT_H

#include "json.h"
#include "topology.h"

typedef struct {
    char host[128], cpu[160], features[128], detected[128], os[160], governor[64];
    char compiler[128], flags[512], commit[48], date[40];
    int dirty;                  /* 1: the work tree had uncommitted changes; -1: not a git checkout */
    ciot_topology topo;
} ciot_context;

void ciot_context_collect(ciot_context *c);
/* Writes the context's members into the object being written (call between begin and end object). */
void ciot_context_write(ciot_json *j, const ciot_context *c);

#endif
