/* A scratch folder for a test program: made under $TMPDIR (or /tmp) with the program's pid in its
 * name, paths inside it, and its removal at the end. */
#ifndef CIOT_TEST_SCRATCH_H
#define CIOT_TEST_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char scratch_dir[256];

/* Makes the folder ciot-test-TAG-<pid>; 0 when it could not be made. */
static inline int scratch_make(const char *tag) {
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch_dir, sizeof scratch_dir, "%s/ciot-test-%s-%ld", tmp && *tmp ? tmp : "/tmp", tag, (long)getpid());
    return mkdir(scratch_dir, 0700) == 0;
}

/* scratch_dir/name; each result stays valid for the next 63 calls. */
static inline const char *scratch_at(const char *name) {
    static char buf[64][512];
    static int next;
    char *p = buf[next++ & 63];
    snprintf(p, sizeof buf[0], "%s/%s", scratch_dir, name);
    return p;
}

static inline void scratch_remove(void) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch_dir);
    if (system(cmd) != 0) printf("note: could not remove %s\n", scratch_dir);
}

#endif
