/* --cpus and --place applied and checked before any pool (place_opts.h). */
#include "place_opts.h"

#include "status.h"

ciot_place_policy ciot_place_policy_of(const ciot_place_args *a) {
    if (a->place_given) return (ciot_place_policy)(CIOT_PLACE_COMPACT + a->place);
    return a->cpus ? CIOT_PLACE_COMPACT : CIOT_PLACE_DEFAULT;
}

int ciot_place_apply(const char *command, const ciot_place_args *a, int no_pin, const int *threads, int n) {
    char why[512];
    const ciot_place_policy p = ciot_place_policy_of(a);
    if (p == CIOT_PLACE_DEFAULT) return ciot_place_set(p, NULL, why, sizeof why), -1;
    if (no_pin) return ciot_say(command, "--cpus and --place pin the threads: they do not go with --no-pin"), 2;
    if (ciot_place_set(p, a->cpus, why, sizeof why) != CIOT_OK) return ciot_say(command, "%s", why), 2;
    for (int i = 0; i < n; i++)
        if (ciot_place_check(threads[i], why, sizeof why) != CIOT_OK) return ciot_say(command, "%s", why), 2;
    return -1;
}
