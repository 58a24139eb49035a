/* Time left on a long run (progress.h). */
#include "progress.h"

#include <math.h>
#include <stdio.h>
#include "pool.h"

const char *ciot_duration(double seconds, char *buf, size_t len) {
    const long s = seconds > 0 ? lround(seconds) : 0;
    if (s < 60) snprintf(buf, len, "%ld s", s);
    else if (s < 3600) snprintf(buf, len, "%ld min %02ld s", s / 60, s % 60);
    else snprintf(buf, len, "%ld h %02ld min", s / 3600, (s % 3600) / 60);
    return buf;
}

void ciot_progress_start(ciot_progress *p, double total) {
    *p = (ciot_progress){ciot_now_ns(), total, 0};
}

double ciot_progress_elapsed(const ciot_progress *p) { return (double)(ciot_now_ns() - p->start_ns) * 1e-9; }

const char *ciot_progress_left(ciot_progress *p, double done, char *buf, size_t len) {
    p->done = done;
    buf[0] = 0;
    if (done <= 0 || done >= p->total) return buf;
    char d[32];
    snprintf(buf, len, "about %s left", ciot_duration(ciot_progress_elapsed(p) * (p->total - done) / done, d, sizeof d));
    return buf;
}
