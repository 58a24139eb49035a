/* The replay's memory plan (replay_plan.h). */
#include "replay_plan.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "bigbuf.h"
#include "rules.h"

static const double GIB = (double)((size_t)1 << 30);

ciot_status ciot_replay_plan_token(const ciot_model *m, const ciot_replay_ask *a, ciot_replay_plan *p, char *why,
                                   size_t why_len) {
    memset(p, 0, sizeof *p);
    for (int c = 0; c < a->n_context; c++)
        p->largest_context = a->context[c] > p->largest_context ? a->context[c] : p->largest_context;
    if (a->matvecs_only) return CIOT_OK;
    if (!m->n_token) {
        snprintf(p->why_not, sizeof p->why_not, "%s: %s: replaying its matvecs only", m->path, m->token_note);
        return CIOT_OK;
    }
    if (a->batch > 1) {
        snprintf(p->why_not, sizeof p->why_not, "--batch %d replays prompt processing: the matvecs only (the whole "
                 "token is one decoded token)", a->batch);
        return CIOT_OK;
    }
    const int most = p->largest_context;
    ciot_status st = ciot_token_memory_of(m, most, &p->token, why, why_len);
    if (st != CIOT_OK) return st;
    const size_t avail = ciot_mem_available(), total = ciot_token_memory_total(&p->token), probe = a->probe_bytes;
    if (avail && (total >= SIZE_MAX - probe || total + probe > ciot_mem_cap(avail)))
        return ciot_error(CIOT_E_ARG, why, why_len, "--context %d needs %.2f GiB of KV cache and %.2f GiB of states "
                          "and buffers, and the probe %.2f GiB, but %.2f GiB is available (MemAvailable)", most,
                          (double)p->token.kv / GIB, (double)(total - p->token.kv) / GIB, (double)probe / GIB,
                          (double)avail / GIB);
    p->whole = 1;
    return CIOT_OK;
}

ciot_status ciot_replay_plan_memory(const ciot_model *m, int n_ops, const ciot_layout *l, const ciot_replay_ask *a,
                                    ciot_replay_plan *p, char *why, size_t why_len) {
    size_t full, group, ring;
    ciot_replay_sizes(m, n_ops, l, &full, &group, &ring);
    if (a->ring_bytes) ring = a->ring_bytes;
    const size_t token_bytes = p->whole ? ciot_token_memory_total(&p->token) : 0;
    const size_t avail = ciot_mem_available(), cold_min = ciot_cache_reach();
    const size_t others = a->probe_bytes + token_bytes;   /* both far below SIZE_MAX: ciot_replay_plan_token */
    const size_t fit = ciot_mem_cap(avail) > others ? ciot_mem_cap(avail) - others : 0;
    int mem = a->memory;
    if (mem == CIOT_MEMORY_AUTO) {
        const int full_ok = !avail || (full <= avail / 10 * 6 && full <= fit);
        /* a GGUF model replays its real bytes, which only the full plan holds: full whenever it fits */
        if (full_ok && (full >= cold_min || m->gguf)) mem = CIOT_MEMORY_FULL;
        else if (!avail || ring <= fit) mem = CIOT_MEMORY_RING;
        else if (full_ok) mem = CIOT_MEMORY_FULL;
        else mem = CIOT_MEMORY_RING;     /* refused below */
    }
    p->region_bytes = mem == CIOT_MEMORY_FULL ? full : ring;
    if (avail && p->region_bytes > fit) {
        char token[96] = "";
        if (token_bytes)
            snprintf(token, sizeof token, ", the whole token's states and KV caches %.2f GiB",
                     (double)token_bytes / GIB);
        return ciot_error(CIOT_E_ARG, why, why_len, "%s of %s needs %.2f GiB of weights and the probe %.2f GiB%s, but "
                          "%.2f GiB is available (MemAvailable)%s",
                          mem == CIOT_MEMORY_FULL ? "the whole model" : "the ring", m->path,
                          (double)p->region_bytes / GIB, (double)a->probe_bytes / GIB, token, (double)avail / GIB,
                          mem == CIOT_MEMORY_FULL ? "; try --memory ring" : "");
    }
    p->memory = (ciot_memory)mem;
    p->ring_bytes = ring;
    p->cold = p->region_bytes >= group + cold_min;
    return CIOT_OK;
}
