/* Outputs (output.h): where a path leads (following symbolic links), then a temporary file renamed
 * onto a regular target, or copied through to a device, FIFO, socket or descriptor of this process. */
#include "output.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
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
    mode_t mode;            /* TARGET_REGULAR: its permission bits */
    dev_t dev;              /* TARGET_REGULAR: the file; TARGET_NEW: the directory it goes in */
    ino_t ino;
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
static void dir_of(const char *p, char *dir, size_t len) {
    const char *slash = strrchr(p, '/');
    if (!slash) snprintf(dir, len, ".");
    else if (slash == p) snprintf(dir, len, "/");
    else snprintf(dir, len, "%.*s", (int)(slash - p), p);
}

/* A link inside /proc (/proc/self/fd/1, reached from /dev/stdout or /dev/fd/1): 1 when it is, with
 * *fd set to the descriptor when the link is one of this process's own, else -1. */
static int proc_link(const char *link, int *fd) {
    char dir[PATH_MAX], real[PATH_MAX], own[64];
    dir_of(link, dir, sizeof dir);
    if (!realpath(dir, real) || strncmp(real, "/proc/", 6) != 0) return 0;
    *fd = -1;
    snprintf(own, sizeof own, "/proc/%ld/fd", (long)getpid());
    const char *base = strrchr(link, '/');
    base = base ? base + 1 : link;
    char *end;
    long n = strtol(base, &end, 10);
    if (!strcmp(real, own) && isdigit((unsigned char)*base) && !*end && n <= INT_MAX) *fd = (int)n;
    return 1;
}

/* Where PATH leads, symbolic links followed: the kind of target and the file itself (t->dev, t->ino: the
 * file, or for a new name its directory). CIOT_E_ARG with a message when PATH names no file that could be
 * written (a directory, a loop, a dangling name in a missing directory). */
static ciot_status follow(const char *path, target *t, char *why, size_t len) {
    memset(t, 0, sizeof *t);
    t->fd = -1;
    if (!path || !*path) return ciot_error(CIOT_E_ARG, why, len, "an empty file name");
    if (strlen(path) >= PATH_MAX) return ciot_error(CIOT_E_ARG, why, len, "%.60s...: the name is too long", path);
    if (path[strlen(path) - 1] == '/')
        return ciot_error(CIOT_E_ARG, why, len, "%s: names a directory, not a file", path);
    snprintf(t->path, sizeof t->path, "%s", path);
    for (int hop = 0;; hop++) {
        struct stat st;
        if (hop > MAX_LINKS) return ciot_error(CIOT_E_ARG, why, len, "%s: too many levels of symbolic links", path);
        if (lstat(t->path, &st) != 0) {
            if (errno != ENOENT) return ciot_error(CIOT_E_ARG, why, len, "%s: %s", path, strerror(errno));
            t->kind = TARGET_NEW;
            break;
        }
        if (S_ISLNK(st.st_mode)) {
            if (proc_link(t->path, &t->fd)) {
                t->kind = t->fd >= 0 ? TARGET_FD : TARGET_DEVICE;
                return CIOT_OK;
            }
            char link[PATH_MAX], dir[PATH_MAX];
            ssize_t n = readlink(t->path, link, sizeof link - 1);
            if (n < 0) return ciot_error(CIOT_E_ARG, why, len, "%s: %s", path, strerror(errno));
            link[n] = 0;
            dir_of(t->path, dir, sizeof dir);
            int w = link[0] == '/' ? snprintf(t->path, sizeof t->path, "%s", link)
                                   : snprintf(t->path, sizeof t->path, "%s/%s", dir, link);
            if (w < 0 || (size_t)w >= sizeof t->path)
                return ciot_error(CIOT_E_ARG, why, len, "%s: the file it links to has too long a name", path);
            continue;
        }
        if (S_ISDIR(st.st_mode))
            return ciot_error(CIOT_E_ARG, why, len, "%s: is a directory%s", path,
                              hop ? " (through a symbolic link)" : "");
        t->kind = S_ISREG(st.st_mode) ? TARGET_REGULAR : S_ISFIFO(st.st_mode) ? TARGET_FIFO
                : S_ISSOCK(st.st_mode) ? TARGET_SOCKET : TARGET_DEVICE;
        t->mode = st.st_mode & 07777;
        t->dev = st.st_dev, t->ino = st.st_ino;
        return CIOT_OK;
    }
    /* a new name: its directory, which must be one */
    char dir[PATH_MAX];
    struct stat st;
    dir_of(t->path, dir, sizeof dir);
    if (stat(dir, &st) != 0) return ciot_error(CIOT_E_ARG, why, len, "%s: no such directory %s", path, dir);
    if (!S_ISDIR(st.st_mode)) return ciot_error(CIOT_E_ARG, why, len, "%s: %s is not a directory", path, dir);
    t->dev = st.st_dev, t->ino = st.st_ino;
    return CIOT_OK;
}

/* Where PATH leads (follow), and whether it may be written: CIOT_E_ARG with a message when it may not. */
static ciot_status resolve(const char *path, target *t, char *why, size_t len) {
    ciot_status st = follow(path, t, why, len);
    if (st != CIOT_OK) return st;
    if (t->kind == TARGET_FD) {
        int fl = fcntl(t->fd, F_GETFL);
        if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
            return ciot_error(CIOT_E_ARG, why, len, "%s: descriptor %d is not open for writing", path, t->fd);
        return CIOT_OK;
    }
    if (t->kind == TARGET_NEW || t->kind == TARGET_REGULAR) {
        char dir[PATH_MAX];
        dir_of(t->path, dir, sizeof dir);
        if (access(dir, W_OK | X_OK) != 0)
            return ciot_error(CIOT_E_ARG, why, len, "%s: cannot create files in %s: %s", path, dir, strerror(errno));
        if (t->kind == TARGET_NEW) return CIOT_OK;
    }
    if (access(t->path, W_OK) != 0)
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
        const char *slash = strrchr(t.path, '/'), *base = slash ? slash + 1 : t.path;
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
        const char *dir = getenv("TMPDIR");
        snprintf(base, sizeof base, "%s/ciot-output", dir && *dir ? dir : "/tmp");
    }
    for (int n = 0; n < 100; n++) {
        int w = n ? snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld.%d", base, (long)getpid(), n)
                  : snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", base, (long)getpid());
        if (w < 0 || (size_t)w >= sizeof o->tmp)
            return ciot_error(CIOT_E_IO, why, len, "%s: the name is too long", o->given);
        if (ciot_tmpfile_register(o->tmp, &o->slot) != CIOT_OK)
            return ciot_error(CIOT_E_IO, why, len, "%s: too many temporary files at once", o->given);
        int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) {
            const int e = errno;
            ciot_tmpfile_release(o->slot);
            o->slot = -1;
            if (e == EEXIST) continue;   /* left by an earlier process with our pid, or ours: take another */
            return ciot_error(CIOT_E_IO, why, len, "%s: cannot create %s: %s", o->given, o->tmp, strerror(e));
        }
        if (o->t.kind == TARGET_REGULAR) (void)fchmod(fd, o->t.mode);
        if (!(o->f = fdopen(fd, "wb"))) {
            close(fd);
            return ciot_error(CIOT_E_IO, why, len, "%s: %s", o->given, strerror(errno));
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
    if (!renamed) unlink(o->tmp);
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

/* The target opened for writing through; -1 with errno set when it cannot be. */
static int open_through(const target *t) {
    if (t->kind == TARGET_FD) return dup(t->fd);
    if (t->kind == TARGET_SOCKET) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        if (strlen(t->path) >= sizeof a.sun_path) return errno = ENAMETOOLONG, -1;
        memcpy(a.sun_path, t->path, strlen(t->path) + 1);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s >= 0 && connect(s, (const struct sockaddr *)&a, sizeof a) != 0) {
            const int e = errno;
            close(s);
            return errno = e, -1;
        }
        return s;
    }
    if (t->kind != TARGET_FIFO) {
        int fd = open(t->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        struct stat st;
        /* another process's descriptor (/proc/PID/fd/N) may lead to a regular file: write it from the start */
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) {
            const int e = errno;
            close(fd);
            return errno = e, -1;
        }
        return fd;
    }
    /* A FIFO without a reader: wait a while for one rather than block forever. */
    for (int waited = 0;; waited += 50) {
        int fd = open(t->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            return fd;
        }
        if (errno != ENXIO || waited >= FIFO_WAIT_MS) return -1;
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    }
}

/* Copies the temporary file through to the target; 0 with errno set when a step fails. */
static int copy_through(const ciot_out *o, char *stage, size_t stage_len) {
    int in = open(o->tmp, O_RDONLY | O_CLOEXEC);
    if (in < 0) return snprintf(stage, stage_len, "cannot read back its temporary file"), 0;
    fflush(NULL);   /* what this process printed to the same descriptor goes first */
    int out = open_through(&o->t);
    if (out < 0) {
        const int e = errno;
        close(in);
        if (e == ENXIO && o->t.kind == TARGET_FIFO)
            snprintf(stage, stage_len, "no reader opened the FIFO in %d s", FIFO_WAIT_MS / 1000);
        else snprintf(stage, stage_len, "cannot open it");
        return errno = e, 0;
    }
    /* A reader that went away is EPIPE here, not a SIGPIPE that kills us without a word. */
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    char buf[1 << 16];
    int ok = 1, e = 0;
    for (ssize_t n; ok && (n = read(in, buf, sizeof buf)) != 0;) {
        if (n < 0) {
            if (errno == EINTR) continue;
            ok = 0, e = errno;
            break;
        }
        for (ssize_t done = 0; ok && done < n;) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) ok = 0, e = w < 0 ? errno : EIO;
            else done += w;
        }
    }
    if (close(out) != 0 && ok && errno != EINTR) ok = 0, e = errno;
    close(in);
    if (e == EPIPE) {   /* take the SIGPIPE that is now pending before unblocking */
        struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!ok) snprintf(stage, stage_len, "writing failed");
    return ok ? 1 : (errno = e, 0);
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
        if (rename(o->tmp, o->t.path) == 0) renamed = 1;
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
