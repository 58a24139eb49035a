/* No output over an input (distinct_paths.h): distinct files pass; an output naming an input, a symbolic
 * link or a hard link to it, or the same new name as another output is refused with a message naming
 * both; outputs written through (/dev/null) and paths that lead nowhere are left alone. Ends with
 * "N passed, M failed, K skipped". */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "distinct_paths.h"
#include "output.h"
#include "scratch.h"

static void touch(const char *path) {
    FILE *f = fopen(path, "wb");
    if (f) fputs("input", f), fclose(f);
}

/* The check's verdict on one input and one output; why receives the message. */
static ciot_status pair(const char *in, const char *out, char *why, size_t len) {
    const ciot_named_path p[] = {{"--weights", in, CIOT_PATH_INPUT, NULL}, {"--out", out, CIOT_PATH_OUTPUT, NULL}};
    why[0] = 0;
    return ciot_distinct_paths_check(p, 2, why, len);
}

static void test_inputs(void) {
    char why[CIOT_WHY_MAX], want[CIOT_WHY_MAX];
    const char *w = scratch_at("w.bin"), *x = scratch_at("x.bin");
    touch(w), touch(x);
    CHECK(pair(w, scratch_at("y.bin"), why, sizeof why) == CIOT_OK, "a new output: %s", why);
    CHECK(pair(w, x, why, sizeof why) == CIOT_OK, "another existing file: %s", why);
    snprintf(want, sizeof want, "--out %s is the same file as --weights %s", w, w);
    CHECK(pair(w, w, why, sizeof why) == CIOT_E_ARG && !strcmp(why, want), "the input itself: '%s'", why);

    symlink("w.bin", scratch_at("to-w"));
    CHECK(pair(w, scratch_at("to-w"), why, sizeof why) == CIOT_E_ARG && strstr(why, "to-w is the same file as"),
          "a symbolic link to the input: '%s'", why);
    symlink("to-w", scratch_at("to-to-w"));
    CHECK(pair(scratch_at("to-w"), scratch_at("to-to-w"), why, sizeof why) == CIOT_E_ARG,
          "links on both sides: '%s'", why);
    if (link(w, scratch_at("hard-w")) == 0)
        CHECK(pair(w, scratch_at("hard-w"), why, sizeof why) == CIOT_E_ARG, "a hard link to the input: '%s'", why);
    else SKIP("hard links: this file system has none");
    char dotted[600];
    snprintf(dotted, sizeof dotted, "%s/./sub/../w.bin", scratch_dir);
    mkdir(scratch_at("sub"), 0700);
    CHECK(pair(w, dotted, why, sizeof why) == CIOT_E_ARG, "the input by another spelling: '%s'", why);

    CHECK(pair(scratch_at("missing.bin"), w, why, sizeof why) == CIOT_OK, "a missing input is the command's: %s", why);
    CHECK(pair(w, scratch_at("nodir/y.bin"), why, sizeof why) == CIOT_OK, "an output in a missing directory: %s", why);
    CHECK(pair(w, scratch_dir, why, sizeof why) == CIOT_OK, "an output that is a directory: %s", why);
    CHECK(pair("/dev/null", "/dev/null", why, sizeof why) == CIOT_OK, "a device read and written through: %s", why);
    CHECK(pair(NULL, w, why, sizeof why) == CIOT_OK, "an input not given: %s", why);
    CHECK(pair(w, NULL, why, sizeof why) == CIOT_OK, "an output not given: %s", why);

    /* --model NAME: the file found elsewhere is the input, and the message says where */
    const ciot_named_path found[] = {{"--model", "tiny", CIOT_PATH_INPUT, w}, {"--json", w, CIOT_PATH_OUTPUT, NULL}};
    snprintf(want, sizeof want, "--json %s is the same file as --model tiny (%s)", w, w);
    CHECK(ciot_distinct_paths_check(found, 2, why, sizeof why) == CIOT_E_ARG && !strcmp(why, want),
          "an input found from a name: '%s'", why);
}

/* The check's verdict on two outputs. */
static ciot_status outputs(const char *a, const char *b, char *why, size_t len) {
    const ciot_named_path p[] = {{"--json", a, CIOT_PATH_OUTPUT, NULL}, {"--dump-ops", b, CIOT_PATH_OUTPUT, NULL}};
    why[0] = 0;
    return ciot_distinct_paths_check(p, 2, why, len);
}

static void test_outputs(void) {
    char why[CIOT_WHY_MAX], want[CIOT_WHY_MAX];
    const char *a = scratch_at("a.json"), *b = scratch_at("b.json");
    CHECK(outputs(a, b, why, sizeof why) == CIOT_OK, "two new names: %s", why);
    snprintf(want, sizeof want, "--dump-ops %s is the same file as --json %s", a, a);
    CHECK(outputs(a, a, why, sizeof why) == CIOT_E_ARG && !strcmp(why, want), "one new name twice: '%s'", why);
    symlink("b.json", scratch_at("to-new-b"));
    CHECK(outputs(b, scratch_at("to-new-b"), why, sizeof why) == CIOT_E_ARG,
          "a dangling link to the other new name: '%s'", why);
    touch(b);
    CHECK(outputs(b, scratch_at("to-new-b"), why, sizeof why) == CIOT_E_ARG, "one existing file twice: '%s'", why);
    CHECK(outputs("/dev/null", "/dev/null", why, sizeof why) == CIOT_OK, "/dev/null twice: %s", why);
    CHECK(outputs("/dev/stdout", "/dev/stdout", why, sizeof why) == CIOT_OK, "/dev/stdout twice: %s", why);
    CHECK(outputs(a, scratch_at("sub/a.json"), why, sizeof why) == CIOT_OK, "one name in two folders: %s", why);
}

int main(void) {
    if (!scratch_make("distinct")) {
        printf("FAIL cannot make a scratch folder\n");
        return 1;
    }
    test_inputs();
    test_outputs();
    scratch_remove();
    return check_summary();
}
