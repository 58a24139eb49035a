/* The one summary of repeated samples: min, median and max. Every spread the program prints or writes
 * (the probes, the ruler's pairs, bench, replay) is this one, so an even count's median is the same mean
 * of the middle two everywhere. */
#ifndef CIOT_STATS_H
#define CIOT_STATS_H

typedef struct {
    double min, median, max;
} ciot_spread;

/* The spread of n values, sorting v in place; all 0 when n is 0. */
ciot_spread ciot_spread_sort(double *v, int n);
/* The spread of n values (v is not changed); all 0 when n is 0 (or out of memory). */
ciot_spread ciot_spread_of(const double *v, int n);
/* The median of n values, sorting v in place; 0 when n is 0. */
double ciot_median(double *v, int n);

/* A probe sample below half the median of its kind (method.md, "Outliers"): a slow sample is a disturbed
 * one, never the machine's rate, while the spread of an undisturbed probe stays within a few percent. */
#define CIOT_LOW_OUTLIER_FRACTION 0.5
#define CIOT_OUTLIER_FLAG "a probe sample below half its median: a disturbed sample (descheduled thread, foreign load)"
/* Whether v is such a sample against median (a median of 0: no samples, none is). */
int ciot_low_outlier(double v, double median);

#endif
