/* The probe of each op kind's traffic mix (replay_ruler.h). */
#include "replay_ruler.h"

ciot_bw_kind ciot_step_ruler(ciot_step_kind k, int copy_streams) {
    const ciot_token_kind *d = ciot_token_kind_of(k);
    if (!d) return CIOT_BW_READ;
    switch (d->mix) {
    case CIOT_MIX_UPDATE: return CIOT_BW_UPDATE;
    case CIOT_MIX_COPY: return copy_streams ? CIOT_BW_COPY_NT : CIOT_BW_COPY;
    default: return CIOT_BW_READ;
    }
}

const char *ciot_ruler_use(ciot_bw_kind ruler) {
    switch (ruler) {
    case CIOT_BW_READ: return "the ops that read: matvecs, attention, norms, embed, ...";
    case CIOT_BW_UPDATE: return "DeltaNet's states, read and written back in place";
    case CIOT_BW_COPY: return "the state copies (plain stores)";
    case CIOT_BW_COPY_NT: return "the state copies (non-temporal stores)";
    default: return "no op kind";
    }
}
