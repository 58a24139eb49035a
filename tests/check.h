/* A minimal check counter for the test programs: every check is counted, failures print what was
 * expected and what came, a case that cannot run here is counted as skipped (never as passed), and the
 * program ends with "N passed, M failed, K skipped". */
#ifndef CIOT_TEST_CHECK_H
#define CIOT_TEST_CHECK_H

#include <stdio.h>

static int check_passed, check_failed, check_skipped;

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

/* A case this machine cannot run, with the reason. */
#define SKIP(...)                                                               \
    do {                                                                        \
        check_skipped++;                                                        \
        printf("SKIP ");                                                        \
        printf(__VA_ARGS__);                                                    \
        printf("\n");                                                          \
    } while (0)

static inline int check_summary(void) {
    printf("%d passed, %d failed, %d skipped\n", check_passed, check_failed, check_skipped);
    return check_failed ? 1 : 0;
}

#endif
