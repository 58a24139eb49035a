/* Time left on a long run: an estimate before it starts, and while it runs the remaining units at the rate
 * of those done so far. */
#ifndef CIOT_PROGRESS_H
#define CIOT_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

/* "45 s", "3 min 05 s" or "1 h 02 min": a duration as a person reads it. */
const char *ciot_duration(double seconds, char *buf, size_t len);

typedef struct {
    uint64_t start_ns;
    double total, done;     /* in any unit: repetitions, or estimated seconds of work */
} ciot_progress;

void ciot_progress_start(ciot_progress *p, double total);
/* "about 1 min 10 s left" after done units of total, from the rate so far; "" before any unit is done. */
const char *ciot_progress_left(ciot_progress *p, double done, char *buf, size_t len);
/* Seconds since ciot_progress_start. */
double ciot_progress_elapsed(const ciot_progress *p);

#endif
