/* A minimal check counter for the test programs: every check is counted, failures print what was
 * expected and what came, and the program ends with "N passed, M failed". */
#ifndef CIOT_TEST_CHECK_H
#define CIOT_TEST_CHECK_H

#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (cond) check_passed++;                                               \
        else {                                                                  \
            check_failed++;                                                     \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                         \
            printf(__VA_ARGS__);                                                \
            printf("\n");                                                       \
        }                                                                       \
    } while (0)

static inline int check_summary(void) {
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
