/* Min, median and max of repeated samples (stats.h). */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

ciot_spread ciot_spread_sort(double *v, int n) {
    if (n <= 0) return (ciot_spread){0, 0, 0};
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return (ciot_spread){v[0], n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v[n - 1]};
}

ciot_spread ciot_spread_of(const double *v, int n) {
    double *c = n > 0 ? malloc((size_t)n * sizeof *c) : NULL;
    if (!c) return (ciot_spread){0, 0, 0};
    memcpy(c, v, (size_t)n * sizeof *c);
    const ciot_spread s = ciot_spread_sort(c, n);
    free(c);
    return s;
}

double ciot_median(double *v, int n) { return ciot_spread_sort(v, n).median; }

int ciot_low_outlier(double v, double median) { return v < CIOT_LOW_OUTLIER_FRACTION * median; }
