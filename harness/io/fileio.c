/* Whole-file reads: a regular file of exactly the expected size, or one line saying why not. */
#include "fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *ciot_file_kind(ciot_os_kind kind) { return ciot_os_kind_name(kind); }

int ciot_open_regular(const char *path, ciot_os_file_info *fi) { return ciot_os_open_regular(path, fi); }

ciot_status ciot_read_exact(const char *path, size_t expect, void **out, char *why, size_t why_len) {
    *out = NULL;
    ciot_os_file_info st;
    const int fd = ciot_open_regular(path, &st);
    if (fd < 0) {
        if (errno) return ciot_error(CIOT_E_IO, why, why_len, "cannot open %s: %s", path, strerror(errno));
        return ciot_error(CIOT_E_IO, why, why_len, "%s is %s, not a file of data", path,
                          ciot_file_kind(st.kind));
    }
    if ((unsigned long long)st.size != (unsigned long long)expect) {
        ciot_os_close(fd);
        return ciot_error(CIOT_E_SHAPE, why, why_len, "%s holds %lld bytes; the shape needs exactly %zu", path,
                          st.size, expect);
    }
    unsigned char *buf = malloc(expect ? expect : 1);
    if (!buf) {
        ciot_os_close(fd);
        return ciot_error(CIOT_E_NOMEM, why, why_len, "cannot allocate %zu bytes for %s", expect, path);
    }
    if (ciot_os_read_full(fd, buf, expect) != 0) {
        ciot_error(CIOT_E_IO, why, why_len, "cannot read %s: %s", path,
                   errno ? strerror(errno) : "it became shorter while read");
        ciot_os_close(fd);
        free(buf);
        return CIOT_E_IO;
    }
    ciot_os_close(fd);
    *out = buf;
    return CIOT_OK;
}
