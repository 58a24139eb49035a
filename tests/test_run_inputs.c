/* `ciot run` on bad inputs and odd outputs, in-process: non-finite activations and weight scales are
 * refused with exit 2 naming the first one, readers refuse directories and FIFOs without waiting, the
 * output is checked before the work (exit 2) and a write failure is a runtime failure (exit 1); a
 * symlink given as --out stays a link. Ends with "N passed, M failed". */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "check.h"
#include "scratch.h"
#include "commands.h"
#include "fileio.h"
#include "fp16.h"

enum { ROWS = 8, K = 512 };
static int run(const char *kernel, const char *w, const char *x, const char *y) {
    char *argv[] = {"run", "--kernel", (char *)kernel, "--rows", "8", "--cols", "512",
                    "--weights", (char *)w, "--act", (char *)x, "--out", (char *)y, NULL};
    return ciot_cmd_run(13, argv);
}

/* Weights: PQ2_0 (34-byte blocks, scale first) or PTQ1_0 (28-byte blocks, scale last), every scale 1.0
 * except block `bad` whose scale is `scale`. */
static void write_weights(const char *path, int ptq1, int bad, uint16_t scale) {
    const size_t block = ptq1 ? 28 : 34, n = (size_t)ROWS * (K / 128);
    unsigned char *w = calloc(n, block);
    for (size_t i = 0; i < n; i++) {
        const uint16_t d = (int)i == bad ? scale : ciot_fp32_to_fp16(1.0f);
        memcpy(w + i * block + (ptq1 ? 26 : 0), &d, 2);
    }
    char why[CIOT_WHY_MAX];
    ciot_write_atomic(path, w, n * block, why, sizeof why);
    free(w);
}

static void write_act(const char *path, int at_index, float v) {
    float x[K];
    for (int j = 0; j < K; j++) x[j] = (float)(j % 7 - 3) * 0.25f;
    if (at_index >= 0) x[at_index] = v;
    char why[CIOT_WHY_MAX];
    ciot_write_atomic(path, x, sizeof x, why, sizeof why);
}

int main(void) {
    if (!scratch_make("run-inputs")) return printf("cannot create %s\n", scratch_dir), 1;
    const char *w = scratch_at("w.bin"), *w1 = scratch_at("w1.bin"), *x = scratch_at("x.bin"), *y = scratch_at("y.bin");
    write_weights(w, 0, -1, 0);
    write_weights(w1, 1, -1, 0);
    write_act(x, -1, 0);
    CHECK(run("pq2_0_gemv_ref", w, x, y) == 0, "the good case runs");
    CHECK(run("ptq1_0_gemv_ref", w1, x, y) == 0, "the good PTQ1_0 case runs");

    const float bad_values[] = {NAN, INFINITY, -INFINITY};
    for (int i = 0; i < 3; i++) {
        write_act(scratch_at("xbad.bin"), 300, bad_values[i]);
        remove(y);
        CHECK(run("pq2_0_gemv_ref", w, scratch_at("xbad.bin"), y) == 2 && access(y, F_OK) != 0,
              "activation %g at 300: exit 2, no output", (double)bad_values[i]);
    }
    const uint16_t bad_scales[] = {0x7e00, 0x7c00, 0xfc00, 0x7c01};
    for (int i = 0; i < 4; i++) {
        write_weights(scratch_at("wbad.bin"), 0, 5, bad_scales[i]);
        write_weights(scratch_at("w1bad.bin"), 1, 31, bad_scales[i]);
        CHECK(run("pq2_0_gemv_ref", scratch_at("wbad.bin"), x, y) == 2, "PQ2_0 scale %#x: exit 2", bad_scales[i]);
        CHECK(run("ptq1_0_gemv_ref", scratch_at("w1bad.bin"), x, y) == 2, "PTQ1_0 scale %#x: exit 2", bad_scales[i]);
    }
    /* readers: a directory, a FIFO (refused at once, never waiting for a writer) */
    CHECK(run("pq2_0_gemv_ref", scratch_dir, x, y) == 2, "weights that are a directory");
    if (mkfifo(scratch_at("fifo"), 0600) == 0)
        CHECK(run("pq2_0_gemv_ref", w, scratch_at("fifo"), y) == 2, "activations from a FIFO");
    /* outputs */
    CHECK(run("pq2_0_gemv_ref", w, x, scratch_dir) == 2, "--out a directory: exit 2");
    CHECK(run("pq2_0_gemv_ref", w, x, scratch_at("none/y.bin")) == 2, "--out in a missing directory: exit 2");
    symlink("real.bin", scratch_at("link.bin"));
    struct stat st;
    CHECK(run("pq2_0_gemv_ref", w, x, scratch_at("link.bin")) == 0 && lstat(scratch_at("link.bin"), &st) == 0 &&
              S_ISLNK(st.st_mode) && stat(scratch_at("real.bin"), &st) == 0 && st.st_size == ROWS * 4,
          "--out a symlink: the link stays, its target gets the %d bytes", ROWS * 4);
    if (mknod(scratch_at("full"), S_IFCHR | 0666, makedev(1, 7)) == 0 && access(scratch_at("full"), W_OK) == 0) {
        CHECK(run("pq2_0_gemv_ref", w, x, scratch_at("full")) == 1, "--out a full device: exit 1 (a runtime failure)");
        CHECK(stat(scratch_at("full"), &st) == 0 && S_ISCHR(st.st_mode), "the device stays a device");
    } else {
        printf("SKIP --out a full device: mknod refused: %s (not counted)\n", strerror(errno));
    }
    scratch_remove();
    return check_summary();
}
