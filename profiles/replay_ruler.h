/* Which DRAM probe an op kind is measured against: the probe of its traffic mix, sampled beside every
 * measured token. A kind that reads (the matvecs, attention over its cache, embed, the norms) keeps the read
 * probe; DeltaNet, which reads its states and writes them back in place, the update probe; a state copy,
 * which reads one buffer and writes another, the copy probe with the same stores as its version's. */
#ifndef CIOT_REPLAY_RULER_H
#define CIOT_REPLAY_RULER_H

#include "model.h"
#include "probe_bw.h"

/* The probe of steps of kind k; copy_streams: the state copy stores non-temporally (ciot_token_ops). */
ciot_bw_kind ciot_step_ruler(ciot_step_kind k, int copy_streams);
/* What the ruler is for, in the report's legend ("DeltaNet's in-place states", ...). */
const char *ciot_ruler_use(ciot_bw_kind ruler);

/* The probe samples paired with the measured tokens, one per token for each probe sampled (NULL: not
 * sampled; read always is when there are any). */
typedef struct {
    const double *gbs[CIOT_BW_N_KINDS];
    size_t span[CIOT_BW_N_KINDS];   /* the probe buffer bytes each kind's samples spanned (measure.h) */
} ciot_paired_samples;

#endif
