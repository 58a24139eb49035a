/* File helpers for the command-line program. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fileio.h"

ciot_status ciot_read_exact(const char *path, size_t expect, void **out, char *why, size_t why_len) {
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, why_len, "cannot open %s: %s", path, strerror(errno));
        return CIOT_E_IO;
    }
    if ((size_t)st.st_size != expect) {
        snprintf(why, why_len, "%s holds %lld bytes; the shape needs exactly %zu", path, (long long)st.st_size, expect);
        return CIOT_E_SHAPE;
    }
    void *buf = malloc(expect ? expect : 1);
    if (!buf) {
        snprintf(why, why_len, "cannot allocate %zu bytes for %s", expect, path);
        return CIOT_E_NOMEM;
    }
    FILE *f = fopen(path, "rb");
    if (!f || fread(buf, 1, expect, f) != expect) {
        snprintf(why, why_len, "cannot read %s: %s", path, f ? "short read" : strerror(errno));
        if (f) fclose(f);
        free(buf);
        return CIOT_E_IO;
    }
    fclose(f);
    *out = buf;
    return CIOT_OK;
}

ciot_status ciot_write_atomic(const char *path, const void *data, size_t bytes, char *why, size_t why_len) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        snprintf(why, why_len, "cannot write %s: %s", path, strerror(errno));
        return CIOT_E_IO;
    }
    int ok = fwrite(data, 1, bytes, f) == bytes;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) {
        snprintf(why, why_len, "cannot write %s: %s", path, strerror(errno));
        remove(tmp);
        return CIOT_E_IO;
    }
    return CIOT_OK;
}
