/* Whole-file reads: a regular file of exactly the expected size, or one line saying why not. */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *ciot_file_kind(unsigned mode) {
    const mode_t m = (mode_t)mode;
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int ciot_open_regular(const char *path, struct stat *st) {
    if (stat(path, st) != 0) return -1;
    errno = 0;
    if (!S_ISREG(st->st_mode)) return -1;
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    const int looked = fstat(fd, st) == 0, saved = errno;
    if (looked && S_ISREG(st->st_mode)) return fd;
    close(fd);
    errno = looked ? 0 : saved;   /* looked: replaced since the stat, and refused all the same */
    return -1;
}

ciot_status ciot_read_exact(const char *path, size_t expect, void **out, char *why, size_t why_len) {
    *out = NULL;
    struct stat st;
    const int fd = ciot_open_regular(path, &st);
    if (fd < 0) {
        if (errno) return ciot_error(CIOT_E_IO, why, why_len, "cannot open %s: %s", path, strerror(errno));
        return ciot_error(CIOT_E_IO, why, why_len, "%s is %s, not a file of data", path,
                          ciot_file_kind(st.st_mode));
    }
    if ((unsigned long long)st.st_size != (unsigned long long)expect) {
        close(fd);
        return ciot_error(CIOT_E_SHAPE, why, why_len, "%s holds %lld bytes; the shape needs exactly %zu", path,
                          (long long)st.st_size, expect);
    }
    unsigned char *buf = malloc(expect ? expect : 1);
    if (!buf) {
        close(fd);
        return ciot_error(CIOT_E_NOMEM, why, why_len, "cannot allocate %zu bytes for %s", expect, path);
    }
    size_t got = 0;
    while (got < expect) {
        ssize_t n = read(fd, buf + got, expect - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ciot_error(CIOT_E_IO, why, why_len, "cannot read %s: %s", path,
                       n < 0 ? strerror(errno) : "it became shorter while read");
            close(fd);
            free(buf);
            return CIOT_E_IO;
        }
        got += (size_t)n;
    }
    close(fd);
    *out = buf;
    return CIOT_OK;
}
