/* The replay's measurement protocol (profiles/README.md, "Measurements and definitions"): the pool, the
 * whole token's ops, the probe buffer and the engine set up together; a warm-up token, then the runs (every
 * dispatch at every context) interleaved per token, each token's round beside one sample of every ruler its
 * steps need; the overhead pairs of a timed and an untimed token; and their summaries as one report.
 * Progress goes to a log, one line per token, each line "ciot replay: ...". */
#ifndef CIOT_REPLAY_SESSION_H
#define CIOT_REPLAY_SESSION_H

#include <stdio.h>
#include "replay.h"
#include "replay_plan.h"
#include "replay_report.h"

enum { CIOT_REPLAY_MAX_CONTEXTS = 16 };

/* What the session points to (the model, the plan, the lists) must outlive it. */
typedef struct {
    ciot_replay_opts engine;        /* the engine's options; memory, ring_bytes, fill_pool and exec are set here */
    const ciot_replay_plan *plan;   /* the memory plan, and whether the whole token runs */
    int threads, pin, tokens;
    const ciot_dispatch *dispatch;  /* the dispatches, interleaved per token in this order */
    int n_dispatch;
    const int *context;             /* the whole token's KV lengths, one run of every dispatch at each */
    int n_context;
    size_t probe_bytes;             /* the probe buffer, on the pages engine.small_pages asks for */
} ciot_replay_session_opts;

typedef struct ciot_replay_session ciot_replay_session;

/* Creates the pool, the whole token's ops (their memory filled at the largest context), the probe buffer,
 * the engine and the records, saying each on log. why gets the reason of a failure: CIOT_E_ARG when the
 * whole token's ops refuse the model, another status when creating or allocating failed. */
ciot_status ciot_replay_session_open(const ciot_replay_session_opts *o, FILE *log, ciot_replay_session **out,
                                     char *why, size_t why_len);
/* The warm-up token, the measured tokens and the overhead pairs; fails only when a probe sample fails. */
ciot_status ciot_replay_session_run(ciot_replay_session *s, FILE *log);
/* Once, after the run: the summaries of the measured tokens into rep, valid until the session is closed
 * (CIOT_E_NOMEM: out of memory for them); every field is the session's (cold: its plan's). */
ciot_status ciot_replay_session_report(ciot_replay_session *s, ciot_replay_report *rep);
void ciot_replay_session_close(ciot_replay_session *s);

#endif
