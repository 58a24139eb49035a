/* Op lists at their limits: fuse group names compared whole whatever their length, weight totals and
 * fuse runs that would overflow refused with file:line, and replay sizes that saturate instead of
 * wrapping to a small number. Ends with "N passed, M failed". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "commands.h"
#include "model.h"
#include "replay.h"

static char *repeat(char c, int n) {
    char *s = malloc((size_t)n + 1);
    memset(s, c, (size_t)n);
    s[n] = 0;
    return s;
}

static void test_long_group_names(void) {
    char *stem = repeat('g', 200), text[1024], err[CIOT_MODEL_ERR_MAX];
    ciot_model m;
    /* two names sharing their first 200 characters are two groups */
    snprintf(text, sizeof text, "a 4 256 fuse=%sA\nb 4 256 fuse=%sB\nc 4 256 fuse=%sB\n", stem, stem, stem);
    CHECK(ciot_model_parse(text, "long.ops", &m, err, sizeof err) == CIOT_OK, "long names parse: %s", err);
    CHECK(m.n_ops == 3 && m.ops[0].fuse == 0 && m.ops[1].fuse == 1 && m.ops[2].fuse == 1 && m.n_fuse == 2,
          "names differing after 200 characters are different groups (%d %d %d, %d groups)", m.ops[0].fuse,
          m.ops[1].fuse, m.ops[2].fuse, m.n_fuse);
    ciot_model_free(&m);
    free(stem);
}

static void expect_refused(const char *text, const char *needle1, const char *needle2) {
    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX] = "";
    ciot_status st = ciot_model_parse(text, "big.ops", &m, err, sizeof err);
    CHECK(st == CIOT_E_ARG && strstr(err, needle1) && strstr(err, needle2), "refused with '%s' and '%s': %s", needle1,
          needle2, err);
}

static void test_totals(void) {
    char text[4096] = "";
    /* 2^30 x 2^30 = 2^60 weights per op: the fifth op passes 2^62 */
    for (int i = 0; i < 8; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "op%d 1073741824 1073741824\n", i);
    expect_refused(text, "big.ops:5:", "2^62 weights");
    expect_refused("a 1073741824 256 fuse=g\nb 1 256 fuse=g\n", "big.ops:2:", "more than 1073741824 rows");
    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX];
    CHECK(ciot_model_parse("a 1073741824 256 fuse=g\nb 1 256 fuse=h\n", "ok.ops", &m, err, sizeof err) == CIOT_OK,
          "two groups of 2^30 rows in all are fine: %s", err);
    ciot_model_free(&m);
}

static void test_sizes_saturate(void) {
    /* Built by hand, past what the parser accepts: 64 ops of 2^30 x 2^30 need 2^64 bytes and more. */
    ciot_model m = {.name = "huge", .path = "huge.ops", .n_ops = 64};
    m.ops = calloc(64, sizeof *m.ops);
    for (int i = 0; i < 64; i++)   /* one fuse group */
        m.ops[i] = (ciot_model_op){.name = "op", .rows = 1 << 30, .K = 1 << 30, .fuse = 0, .line = i + 1, .format = -1};
    size_t full = 0, group = 0, ring = 0;
    ciot_replay_sizes(&m, m.n_ops, &ciot_layout_t2p, &full, &group, &ring);
    CHECK(full == SIZE_MAX && group == SIZE_MAX && ring == SIZE_MAX,
          "sizes past 2^64 saturate (full %zu, group %zu, ring %zu)", full, group, ring);
    ciot_replay_sizes(&m, 1, &ciot_layout_t2p, &full, &group, &ring);
    CHECK(full == ((size_t)136 << 51) && group == full, "one op alone is its exact size (%zu)", full);
    free(m.ops);
}

/* The command refuses such a model before any long work, with exit 2. */
static void test_command(void) {
    char path[256], text[4096] = "";
    snprintf(path, sizeof path, "/tmp/ciot-test-model-limits-%ld.ops", (long)getpid());
    for (int i = 0; i < 8; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "op%d 1073741824 1073741824\n", i);
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
    char *argv[] = {"replay", "--model", path, NULL};
    CHECK(ciot_cmd_replay(3, argv) == 2, "ciot replay --model (over 2^62 weights) exits 2");
    remove(path);
}

int main(void) {
    test_long_group_names();
    test_totals();
    test_sizes_saturate();
    test_command();
    return check_summary();
}
