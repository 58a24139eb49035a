/* A main for a fuzz target outside libFuzzer: runs LLVMFuzzerTestOneInput on every file of the
 * directories given (the committed seed corpus), so the ordinary builds - native, the sanitizers,
 * aarch64 under qemu - replay the corpus as a test. Ends with "N passed, 0 failed" (a failing input
 * aborts with the target's message). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int replay(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return printf("cannot open %s\n", path), 0;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) buf = realloc(buf, cap *= 2);
    }
    fclose(f);
    if (!buf) return printf("out of memory for %s\n", path), 0;
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 1;
}

int main(int argc, char **argv) {
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    int inputs = 0, bad = 0;
    for (int a = 1; a < argc; a++) {
        DIR *d = opendir(argv[a]);
        if (!d) {
            printf("no corpus folder %s\n", argv[a]);
            bad++;
            continue;
        }
        for (struct dirent *e; (e = readdir(d));) {
            char path[4096];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", argv[a], e->d_name);
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
            if (replay(path)) inputs++;
            else bad++;
        }
        closedir(d);
    }
    if (inputs == 0) bad++;   /* an empty corpus tests nothing */
    printf("%d passed, %d failed\n", inputs, bad);
    return bad ? 1 : 0;
}
