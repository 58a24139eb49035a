/* The paired-measurement protocol (measure.h): the ruler; its buffer rule is rules.c, its spreads stats.c. */
#include "measure.h"

#include <stdio.h>
#include <string.h>
#include "bigbuf.h"
#include "os.h"
#include "probe_bw.h"

ciot_status ciot_ruler_init(ciot_ruler *r, ciot_pool *p, size_t bytes, int huge, size_t prefetch, double min_seconds,
                            int allow_small) {
    memset(r, 0, sizeof *r);
    if (!p || !(min_seconds >= 0) || (!allow_small && bytes < ciot_cold_bytes())) return CIOT_E_ARG;
    ciot_status st = ciot_bw_buffer_alloc(p, bytes, huge, &r->buf);
    if (st != CIOT_OK) return st;
    *r = (ciot_ruler){r->buf, bytes, huge, ciot_bigbuf_huge_fraction(r->buf), prefetch, min_seconds};
    return CIOT_OK;
}

ciot_status ciot_ruler_sample(const ciot_ruler *r, ciot_pool *p, double *gbs) {
    return ciot_bw_sample(p, r->buf, r->bytes, r->min_seconds, r->prefetch, gbs, NULL);
}

size_t ciot_ruler_span(const ciot_ruler *r, ciot_bw_kind kind, size_t traffic) {
    if (!traffic) return r->bytes;
    size_t span = kind == CIOT_BW_UPDATE ? traffic / 2 : traffic;
    if (span < ciot_cache_reach()) span = ciot_cache_reach();
    return span < r->bytes ? span : r->bytes;
}
ciot_status ciot_ruler_sample_kind(const ciot_ruler *r, ciot_pool *p, ciot_bw_kind kind, size_t traffic,
                                   double *gbs) {
    return ciot_bw_sample_kind(p, kind, r->buf, ciot_ruler_span(r, kind, traffic), r->min_seconds, r->prefetch,
                               gbs, NULL);
}

void ciot_ruler_free(ciot_ruler *r) {
    if (r->buf) ciot_bw_buffer_free(r->buf, r->bytes);
    memset(r, 0, sizeof *r);
}

const char *ciot_loadavg(char *buf, size_t len) {
    if (!ciot_os_loadavg(buf, len)) snprintf(buf, len, "unknown");
    return buf;
}
