/* --cpus LIST and --place compact|spread|domains, shared by bw, bench and replay (pools/place.h). */
#ifndef CIOT_PLACE_OPTS_H
#define CIOT_PLACE_OPTS_H

#include "opts.h"
#include "place.h"

typedef struct {
    const char *cpus;
    int place, place_given;     /* index into CIOT_PLACE_CHOICES */
} ciot_place_args;

#define CIOT_PLACE_OPTS(a)                                                                                        \
    {"--cpus", CIOT_OPT_STRING, &(a)->cpus, 0, 0, NULL, "LIST",                                                    \
     "processing units the threads may run on (OS numbers, e.g. 0-3,8); compact\nplacement within them unless --place says", NULL}, \
    {"--place", CIOT_OPT_CHOICE, &(a)->place, 0, 0, CIOT_PLACE_CHOICES, CIOT_PLACE_CHOICES,                         \
     "compact: a core each in order; spread: round-robin over the domains; domains:\nthe threads split evenly over every domain (ciot info lists them)", &(a)->place_given}

/* The policy the options name (CIOT_PLACE_DEFAULT when neither is given). */
ciot_place_policy ciot_place_policy_of(const ciot_place_args *a);
/* Sets the process's placement and refuses each of the n thread counts it cannot place, and a placement with
 * no_pin; -1 when fine, else 2 after one line "ciot CMD: ...". */
int ciot_place_apply(const char *command, const ciot_place_args *a, int no_pin, const int *threads, int n);

#endif
