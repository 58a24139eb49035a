/* The paired-measurement protocol (measure.h): the DRAM buffer rule, the ruler, and the spreads. */
#include "measure.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bigbuf.h"
#include "probe_bw.h"
#include "topo.h"

static const size_t GIB = (size_t)1 << 30, HUGE_PAGE = (size_t)2 << 20;

size_t ciot_cold_bytes(void) {
    const size_t four_llc = 4 * ciot_topo_llc_bytes(NULL);
    const size_t bytes = four_llc > GIB ? four_llc : GIB;
    return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
}

int ciot_cache_resident(size_t bytes) { return bytes < 4 * ciot_topo_llc_bytes(NULL); }

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

void ciot_ruler_free(ciot_ruler *r) {
    if (r->buf) ciot_bw_buffer_free(r->buf, r->bytes);
    memset(r, 0, sizeof *r);
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

ciot_spread ciot_spread_of(const double *v, int n) {
    ciot_spread s = {0, 0, 0};
    double *c = n > 0 ? malloc((size_t)n * sizeof *c) : NULL;
    if (!c) return s;
    memcpy(c, v, (size_t)n * sizeof *c);
    qsort(c, (size_t)n, sizeof *c, cmp_double);
    s = (ciot_spread){c[0], n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]), c[n - 1]};
    free(c);
    return s;
}

const char *ciot_loadavg(char *buf, size_t len) {
    double a, b, c;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f && fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3) snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
    else snprintf(buf, len, "unknown");
    if (f) fclose(f);
    return buf;
}
