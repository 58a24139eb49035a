/* Outputs (output.h): where a path leads (following symbolic links), then a temporary file renamed
 * onto a regular target, or copied through to a device, FIFO, socket or descriptor of this process. */
#include "output.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "os.h"
#include "tmpfiles.h"

enum { MAX_LINKS = 40, FIFO_WAIT_MS = 5000 };

typedef enum {
    TARGET_NEW,         /* does not exist yet: created by rename */
    TARGET_REGULAR,     /* replaced by rename */
    TARGET_DEVICE,      /* character or block device: written through */
    TARGET_FIFO,
    TARGET_SOCKET,
    TARGET_FD,          /* a descriptor of this process (/dev/stdout, /dev/fd/N) */
} target_kind;

typedef struct {
    target_kind kind;
    char path[PATH_MAX];    /* the file itself, symbolic links followed */
    unsigned mode;          /* TARGET_REGULAR: its permission bits */
    uint64_t dev, ino;      /* TARGET_REGULAR: the file; TARGET_NEW: the directory it goes in */
    int fd;                 /* TARGET_FD */
} target;

struct ciot_out {
    FILE *f;
    target t;
    char given[PATH_MAX];   /* as the caller named it, for messages */
    char tmp[PATH_MAX];
    int slot;               /* tmpfiles registration */
};

/* The directory part of p ("." when it has none). */
/* The last path separator in p, NULL when it has none. */
static const char *last_sep(const char *p) {
    const char *s = NULL;
    for (; *p; p++)
        if (ciot_os_is_sep(*p)) s = p;
    return s;
}

static void dir_of(const char *p, char *dir, size_t len) {
    const char *slash = last_sep(p);
    if (!slash) snprintf(dir, len, ".");
    else if (slash == p) snprintf(dir, len, "/");
    else snprintf(dir, len, "%.*s", (int)(slash - p), p);
}

/* Where PATH leads, symbolic links followed: the kind of target and the file itself (t->dev, t->ino: the
 * file, or for a new name its directory). CIOT_E_ARG with a message when PATH names no file that could be
 * written (a directory, a loop, a dangling name in a missing directory). */
static ciot_status follow(const char *path, target *t, char *why, size_t len) {
    memset(t, 0, sizeof *t);
    t->fd = -1;
    if (!path || !*path) return ciot_error(CIOT_E_ARG, why, len, "an empty file name");
    if (strlen(path) >= PATH_MAX) return ciot_error(CIOT_E_ARG, why, len, "%.60s...: the name is too long", path);
    if (ciot_os_is_sep(path[strlen(path) - 1]))
        return ciot_error(CIOT_E_ARG, why, len, "%s: names a directory, not a file", path);
    snprintf(t->path, sizeof t->path, "%s", path);
    for (int hop = 0;; hop++) {
        ciot_os_file_info st;
        if (hop > MAX_LINKS) return ciot_error(CIOT_E_ARG, why, len, "%s: too many levels of symbolic links", path);
        if (ciot_os_file_info_of(t->path, 0, &st) != 0) {
            if (errno != ENOENT) return ciot_error(CIOT_E_ARG, why, len, "%s: %s", path, strerror(errno));
            t->kind = TARGET_NEW;
            break;
        }
        if (st.kind == CIOT_OS_LINK) {
            /* a link inside /proc (/proc/self/fd/1, reached from /dev/stdout or /dev/fd/1) */
            const int own = ciot_os_descriptor_link(t->path, &t->fd);
            if (own) {
                t->kind = own > 0 && t->fd >= 0 ? TARGET_FD : TARGET_DEVICE;
                return CIOT_OK;
            }
            char link[PATH_MAX], dir[PATH_MAX];
            if (ciot_os_readlink(t->path, link, sizeof link) != 0)
                return ciot_error(CIOT_E_ARG, why, len, "%s: %s", path, strerror(errno));
            dir_of(t->path, dir, sizeof dir);
            int w = ciot_os_is_sep(link[0]) ? snprintf(t->path, sizeof t->path, "%s", link)
                                            : snprintf(t->path, sizeof t->path, "%s/%s", dir, link);
            if (w < 0 || (size_t)w >= sizeof t->path)
                return ciot_error(CIOT_E_ARG, why, len, "%s: the file it links to has too long a name", path);
            continue;
        }
        if (st.kind == CIOT_OS_DIR)
            return ciot_error(CIOT_E_ARG, why, len, "%s: is a directory%s", path,
                              hop ? " (through a symbolic link)" : "");
        t->kind = st.kind == CIOT_OS_REGULAR ? TARGET_REGULAR : st.kind == CIOT_OS_FIFO ? TARGET_FIFO
                : st.kind == CIOT_OS_SOCKET ? TARGET_SOCKET : TARGET_DEVICE;
        t->mode = st.mode;
        t->dev = st.dev, t->ino = st.ino;
        return CIOT_OK;
    }
    /* a new name: its directory, which must be one */
    char dir[PATH_MAX];
    ciot_os_file_info st;
    dir_of(t->path, dir, sizeof dir);
    if (ciot_os_file_info_of(dir, 1, &st) != 0)
        return ciot_error(CIOT_E_ARG, why, len, "%s: no such directory %s", path, dir);
    if (st.kind != CIOT_OS_DIR) return ciot_error(CIOT_E_ARG, why, len, "%s: %s is not a directory", path, dir);
    t->dev = st.dev, t->ino = st.ino;
    return CIOT_OK;
}

/* Where PATH leads (follow), and whether it may be written: CIOT_E_ARG with a message when it may not. */
static ciot_status resolve(const char *path, target *t, char *why, size_t len) {
    ciot_status st = follow(path, t, why, len);
    if (st != CIOT_OK) return st;
    if (t->kind == TARGET_FD) {
        if (!ciot_os_fd_writable(t->fd))
            return ciot_error(CIOT_E_ARG, why, len, "%s: descriptor %d is not open for writing", path, t->fd);
        return CIOT_OK;
    }
    if (t->kind == TARGET_NEW || t->kind == TARGET_REGULAR) {
        char dir[PATH_MAX];
        dir_of(t->path, dir, sizeof dir);
        if (!ciot_os_can_write(dir, 1))
            return ciot_error(CIOT_E_ARG, why, len, "%s: cannot create files in %s: %s", path, dir, strerror(errno));
        if (t->kind == TARGET_NEW) return CIOT_OK;
    }
    if (!ciot_os_can_write(t->path, 0))
        return ciot_error(CIOT_E_ARG, why, len, "%s: not writable: %s", path, strerror(errno));
    return CIOT_OK;
}

ciot_status ciot_output_identify(const char *path, ciot_output_file *f, char *why, size_t why_len) {
    target t;
    memset(f, 0, sizeof *f);
    ciot_status st = follow(path, &t, why, why_len);
    if (st != CIOT_OK) return st;
    f->kind = t.kind == TARGET_REGULAR ? CIOT_OUTPUT_REGULAR : t.kind == TARGET_NEW ? CIOT_OUTPUT_NEW
                                                                                    : CIOT_OUTPUT_THROUGH;
    f->dev = t.dev, f->ino = t.ino;
    if (t.kind == TARGET_NEW) {
        const char *slash = last_sep(t.path), *base = slash ? slash + 1 : t.path;
        if (strlen(base) >= sizeof f->name)
            return ciot_error(CIOT_E_ARG, why, why_len, "%s: %s", path, strerror(ENAMETOOLONG));
        snprintf(f->name, sizeof f->name, "%s", base);
    }
    return CIOT_OK;
}

/* Creates and registers a temporary file: beside a regular target, in $TMPDIR for the others. */
static ciot_status make_temp(ciot_out *o, char *why, size_t len) {
    char base[PATH_MAX];
    if (o->t.kind == TARGET_NEW || o->t.kind == TARGET_REGULAR) {
        snprintf(base, sizeof base, "%s", o->t.path);
    } else {
        char dir[PATH_MAX];
        ciot_os_temp_dir(dir, sizeof dir);
        snprintf(base, sizeof base, "%s/ciot-output", dir);
    }
    for (int n = 0; n < 100; n++) {
        int w = n ? snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld.%d", base, ciot_os_pid(), n)
                  : snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", base, ciot_os_pid());
        if (w < 0 || (size_t)w >= sizeof o->tmp)
            return ciot_error(CIOT_E_IO, why, len, "%s: the name is too long", o->given);
        if (ciot_tmpfile_register(o->tmp, &o->slot) != CIOT_OK)
            return ciot_error(CIOT_E_IO, why, len, "%s: too many temporary files at once", o->given);
        o->f = ciot_os_create_excl(o->tmp, o->t.kind == TARGET_REGULAR ? o->t.mode : 0);
        if (!o->f) {
            const int e = errno;
            ciot_tmpfile_release(o->slot);
            o->slot = -1;
            if (e == EEXIST) continue;   /* left by an earlier process with our pid, or ours: take another */
            return ciot_error(CIOT_E_IO, why, len, "%s: cannot create %s: %s", o->given, o->tmp, strerror(e));
        }
        return CIOT_OK;
    }
    return ciot_error(CIOT_E_IO, why, len, "%s: cannot find a free temporary name beside it", o->given);
}

/* Closes and forgets the temporary file, removing it unless it was renamed (its name may be taken
 * again by now). */
static void drop_temp(ciot_out *o, int renamed) {
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (!renamed) ciot_os_remove(o->tmp);
    ciot_tmpfile_release(o->slot);
    o->slot = -1;
}

ciot_status ciot_out_open(const char *path, ciot_out **out, char *why, size_t why_len) {
    *out = NULL;
    ciot_out *o = calloc(1, sizeof *o);
    if (!o) return ciot_error(CIOT_E_NOMEM, why, why_len, "%s: out of memory", path ? path : "");
    o->slot = -1;
    ciot_status st = resolve(path, &o->t, why, why_len);
    if (st == CIOT_OK) {
        snprintf(o->given, sizeof o->given, "%s", path);
        st = make_temp(o, why, why_len);
    }
    if (st != CIOT_OK) {
        if (o->slot >= 0) drop_temp(o, 0);
        free(o);
        return st;
    }
    *out = o;
    return CIOT_OK;
}

FILE *ciot_out_stream(ciot_out *o) { return o->f; }
const char *ciot_out_temp_path(const ciot_out *o) { return o->tmp; }

/* Copies the temporary file through to the target; 0 with errno set when a step fails. */
static int copy_through(const ciot_out *o, char *stage, size_t stage_len) {
    const ciot_os_kind kind = o->t.kind == TARGET_FIFO ? CIOT_OS_FIFO : o->t.kind == TARGET_SOCKET ? CIOT_OS_SOCKET
                                                                                                   : CIOT_OS_CHAR;
    return ciot_os_write_through(o->tmp, kind, o->t.path, o->t.kind == TARGET_FD ? o->t.fd : -1, FIFO_WAIT_MS,
                                 stage, stage_len);
}

ciot_status ciot_output_check(const char *path, char *why, size_t why_len) {
    ciot_out *o;
    ciot_status st = ciot_out_open(path, &o, why, why_len);
    ciot_out_abort(o);
    return st == CIOT_E_IO ? CIOT_E_ARG : st;
}

ciot_status ciot_out_commit(ciot_out *o, char *why, size_t why_len) {
    ciot_status st = CIOT_OK;
    int renamed = 0;
    int ok = fflush(o->f) == 0 && !ferror(o->f), e = errno;
    if (fclose(o->f) != 0 && ok) ok = 0, e = errno;
    o->f = NULL;
    if (!ok) {
        st = ciot_error(CIOT_E_IO, why, why_len, "%s: cannot write %s: %s", o->given, o->tmp, strerror(e));
    } else if (o->t.kind == TARGET_NEW || o->t.kind == TARGET_REGULAR) {
        if (ciot_os_replace(o->tmp, o->t.path) == 0) renamed = 1;
        else
            st = ciot_error(CIOT_E_IO, why, why_len, "%s: cannot rename %s onto it: %s", o->given, o->tmp,
                            strerror(errno));
    } else {
        char stage[96];
        if (!copy_through(o, stage, sizeof stage))
            st = ciot_error(CIOT_E_IO, why, why_len, "%s: %s: %s", o->given, stage, strerror(errno));
    }
    drop_temp(o, renamed);
    free(o);
    return st;
}

void ciot_out_abort(ciot_out *o) {
    if (!o) return;
    drop_temp(o, 0);
    free(o);
}

ciot_status ciot_write_atomic(const char *path, const void *data, size_t bytes, char *why, size_t why_len) {
    ciot_out *o;
    ciot_status st = ciot_out_open(path, &o, why, why_len);
    if (st != CIOT_OK) return st;
    if (bytes && fwrite(data, 1, bytes, o->f) != bytes) {
        const int e = errno;
        ciot_out_abort(o);
        return ciot_error(CIOT_E_IO, why, why_len, "%s: cannot write its temporary file: %s", path, strerror(e));
    }
    return ciot_out_commit(o, why, why_len);
}
