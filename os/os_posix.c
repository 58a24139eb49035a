/* The OS seam (os.h) on Linux (POSIX calls, /proc, getauxval). */
#include "os.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <dlfcn.h>
#include <regex.h>
#if defined(__linux__) && defined(__aarch64__)
#include <sys/auxv.h>
#endif

_Static_assert(sizeof(sigset_t) <= sizeof(ciot_os_stopmask), "a sigset_t fits the saved stop mask");

/* ---- time, processes, the machine ---- */

uint64_t ciot_os_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void ciot_os_sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

long ciot_os_pid(void) { return (long)getpid(); }

int ciot_os_cpus_online(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < INT_MAX ? (int)n : 0;
}

size_t ciot_os_memory_total(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (size_t)pages * (size_t)size : 0;
}

size_t ciot_os_memory_available(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1) break;
    fclose(f);
    return (size_t)kb * 1024;
}

int ciot_os_loadavg(char *buf, size_t len) {
    double a, b, c;
    FILE *f = fopen("/proc/loadavg", "r");
    int ok = f && fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3;
    if (f) fclose(f);
    if (ok) snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
    return ok;
}

int ciot_os_host_name(char *buf, size_t len) {
    if (len < 2) return 0;
    buf[len - 1] = 0;
    return gethostname(buf, len - 1) == 0;
}

int ciot_os_describe(char *buf, size_t len) {
    struct utsname u;
    if (uname(&u) != 0) return 0;
    snprintf(buf, len, "%s %s %s", u.sysname, u.release, u.machine);
    return 1;
}

void ciot_os_command_line(const char *cmd, char *out, size_t n) {
    out[0] = 0;
    FILE *p = popen(cmd, "r");
    if (!p) return;
    if (fgets(out, (int)n, p)) out[strcspn(out, "\n")] = 0;
    pclose(p);
}

const char *ciot_os_cpu_model(char *buf, size_t len) {
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return buf;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        /* x86 says "model name", many ARM kernels only "CPU part" (a number) */
        if (!strncmp(line, "model name", 10) || !strncmp(line, "Model", 5) || !strncmp(line, "CPU part", 8)) {
            char *colon = strchr(line, ':');
            if (!colon) continue;
            colon++;
            while (*colon == ' ' || *colon == '\t') colon++;
            colon[strcspn(colon, "\n")] = 0;
            snprintf(buf, len, "%s%s", strncmp(line, "CPU part", 8) ? "" : "CPU part ", colon);
            if (strncmp(line, "CPU part", 8)) break;
        }
    }
    fclose(f);
    return buf;
}

void ciot_os_utc_now(char *buf, size_t len) {
    const time_t now = time(NULL);
    struct tm utc;
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &utc));
}

/* ---- CPU features ---- */

unsigned long ciot_os_arm_hwcap(int word) {
#if defined(__linux__) && defined(__aarch64__)
    return getauxval(word == 2 ? AT_HWCAP2 : AT_HWCAP);
#else
    (void)word;
    return 0;
#endif
}

int ciot_os_processor_feature(unsigned feature) { return 0; }

/* ---- threads ---- */

_Static_assert(sizeof(pthread_t) <= sizeof(((ciot_os_thread *)0)->opaque), "a pthread_t fits a thread");

static void *thread_main(void *v) {
    ciot_os_thread *t = v;
    t->fn(t->arg);
    return NULL;
}

int ciot_os_thread_start(ciot_os_thread *t, void (*fn)(void *), void *arg) {
    t->fn = fn, t->arg = arg;
    return pthread_create((pthread_t *)(void *)t->opaque, NULL, thread_main, t) == 0 ? 0 : -1;
}

void ciot_os_thread_join(ciot_os_thread *t) { pthread_join(*(pthread_t *)(void *)t->opaque, NULL); }

void ciot_os_yield(void) { sched_yield(); }

/* ---- priority: the calling thread's nice value (setpriority on a tid is per thread on Linux) ---- */

static id_t self_id(void) {
#if defined(__linux__)
    return (id_t)syscall(SYS_gettid);
#else
    return 0; /* elsewhere the whole process */
#endif
}

static const char *errno_name(int e) {
    switch (e) {
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EINVAL: return "EINVAL";
    case ESRCH: return "ESRCH";
    default: return "error";
    }
}

int ciot_os_priority_raise(int nice, ciot_os_priority_saved *saved, char *msg, size_t len) {
    saved->changed = 0;
    errno = 0;
    int old = getpriority(PRIO_PROCESS, self_id());
    if (old == -1 && errno != 0) {
        snprintf(msg, len, "nice %d: could not read (%s)", nice, errno_name(errno));
        return 0;
    }
    saved->old = old;
    if (old <= nice) {
        snprintf(msg, len, "nice %d: already %d", nice, old);
        return 1;
    }
    if (setpriority(PRIO_PROCESS, self_id(), nice) != 0) {
        snprintf(msg, len, "nice %d: refused (%s)", nice, errno_name(errno));
        return 0;
    }
    saved->changed = 1;
    snprintf(msg, len, "nice %d: ok", nice);
    return 1;
}

void ciot_os_priority_restore(const ciot_os_priority_saved *saved) {
    if (saved->changed) setpriority(PRIO_PROCESS, self_id(), saved->old);
}

/* ---- stopping ---- */

static void stop_signals(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

void ciot_os_stop_block(ciot_os_stopmask *saved) {
    sigset_t stop;
    stop_signals(&stop);
    pthread_sigmask(SIG_BLOCK, &stop, (sigset_t *)(void *)saved->opaque);
}

/* A stop signal that came meanwhile is pending: it is taken here, in the creating thread. */
void ciot_os_stop_restore(const ciot_os_stopmask *saved) {
    pthread_sigmask(SIG_SETMASK, (const sigset_t *)(const void *)saved->opaque, NULL);
}

int ciot_os_stop_blocked(void) {
    sigset_t now;
    if (pthread_sigmask(SIG_BLOCK, NULL, &now) != 0) return -1;
    return sigismember(&now, SIGINT) == 1 && sigismember(&now, SIGTERM) == 1 && sigismember(&now, SIGHUP) == 1;
}

static void (*stop_cleanup)(void);

/* Touches only static memory, unlink (in cleanup), sigaction, pthread_sigmask and raise: all
 * async-signal-safe. */
static void on_signal(int sig) {
    stop_cleanup();
    /* Now the default action, while sig is still blocked (SA_RESETHAND would restore it before the kernel
     * blocks sig, and a second copy in between would end the process before the unlink): die of it. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    raise(sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int ciot_os_on_stop(void (*cleanup)(void)) {
    stop_cleanup = cleanup;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    /* the signals pool threads block, all blocked while the handler runs */
    stop_signals(&sa.sa_mask);
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction old;
        if (!sigismember(&sa.sa_mask, sig)) continue;
        if (sigaction(sig, NULL, &old) != 0) return -1;
        if (old.sa_handler == SIG_IGN) continue;
        if (sigaction(sig, &sa, NULL) != 0) return -1;
    }
    return 0;
}

/* ---- large buffers: straight from mmap, aligned so transparent huge pages can back them whole ---- */

enum { HUGE_ALIGN = 2 << 20 };

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

void *ciot_os_bigbuf_alloc(size_t bytes, int huge) {
    if (bytes == 0) return NULL;
    size_t len = round_up(bytes, HUGE_ALIGN);
    /* Map one extra alignment unit, then trim both ends to an aligned window of len bytes. */
    char *raw = mmap(NULL, len + HUGE_ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return NULL;
    char *p = (char *)round_up((uintptr_t)raw, HUGE_ALIGN);
    if (p > raw) munmap(raw, (size_t)(p - raw));
    size_t tail = (size_t)(raw + len + HUGE_ALIGN - (p + len));
    if (tail) munmap(p + len, tail);
#if defined(MADV_HUGEPAGE)
    if (huge) madvise(p, len, MADV_HUGEPAGE);
#endif
#if defined(MADV_NOHUGEPAGE)
    if (!huge) madvise(p, len, MADV_NOHUGEPAGE);
#endif
    return p;
}

void ciot_os_bigbuf_free(void *p, size_t bytes) {
    if (p) munmap(p, round_up(bytes, HUGE_ALIGN));
}

void *ciot_os_aligned_alloc(size_t align, size_t size) {
    return aligned_alloc(align, (size + align - 1) / align * align);
}

void ciot_os_aligned_free(void *p) { free(p); }

FILE *ciot_os_memstream_open(char **text, size_t *len) { return open_memstream(text, len); }

int ciot_os_memstream_close(FILE *f, char **text, size_t *len) {
    (void)text, (void)len;  /* open_memstream fills them on fclose */
    return fclose(f) == 0 ? 0 : -1;
}

double ciot_os_huge_fraction(const void *p) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int inside = 0;
    unsigned long long rss = 0, huge = 0, v;
    int have_rss = 0, have_huge = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo, hi;
        if (sscanf(line, "%llx-%llx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            if (inside) break; /* the next mapping began */
            inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        } else if (inside && sscanf(line, "Rss: %llu kB", &v) == 1) {
            rss = v, have_rss = 1;
        } else if (inside && sscanf(line, "AnonHugePages: %llu kB", &v) == 1) {
            huge = v, have_huge = 1;
        }
    }
    fclose(f);
    if (!have_rss || !have_huge || rss == 0) return -1;
    return (double)huge / (double)rss;
}

/* ---- files ---- */

int ciot_os_is_sep(char c) { return c == '/'; }

static ciot_os_kind kind_of(mode_t m) {
    return S_ISREG(m) ? CIOT_OS_REGULAR : S_ISDIR(m) ? CIOT_OS_DIR : S_ISLNK(m) ? CIOT_OS_LINK
         : S_ISFIFO(m) ? CIOT_OS_FIFO : S_ISSOCK(m) ? CIOT_OS_SOCKET : S_ISBLK(m) ? CIOT_OS_BLOCK : CIOT_OS_CHAR;
}

static void fill_info(const struct stat *st, ciot_os_file_info *fi) {
    fi->kind = kind_of(st->st_mode);
    fi->dev = (uint64_t)st->st_dev, fi->ino = (uint64_t)st->st_ino;
    fi->mode = (unsigned)(st->st_mode & 07777);
    fi->size = (long long)st->st_size;
}

int ciot_os_file_info_of(const char *path, int follow, ciot_os_file_info *fi) {
    struct stat st;
    memset(fi, 0, sizeof *fi);
    if ((follow ? stat(path, &st) : lstat(path, &st)) != 0) {
        fi->kind = CIOT_OS_MISSING;
        return -1;
    }
    fill_info(&st, fi);
    return 0;
}

int ciot_os_readlink(const char *path, char *buf, size_t len) {
    ssize_t n = readlink(path, buf, len - 1);
    if (n < 0) return -1;
    buf[n] = 0;
    return 0;
}

int ciot_os_descriptor_link(const char *link, int *fd) {
    char dir[PATH_MAX], real[PATH_MAX], own[64];
    const char *slash = strrchr(link, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == link) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - link), link);
    if (!realpath(dir, real) || strncmp(real, "/proc/", 6) != 0) return 0;
    *fd = -1;
    snprintf(own, sizeof own, "/proc/%ld/fd", (long)getpid());
    const char *base = slash ? slash + 1 : link;
    char *end;
    long n = strtol(base, &end, 10);
    if (!strcmp(real, own) && isdigit((unsigned char)*base) && !*end && n <= INT_MAX) *fd = (int)n;
    return 1;
}

int ciot_os_fd_writable(int fd) {
    int fl = fcntl(fd, F_GETFL);
    return fl >= 0 && (fl & O_ACCMODE) != O_RDONLY;
}

int ciot_os_can_write(const char *path, int dir) { return access(path, dir ? W_OK | X_OK : W_OK) == 0; }

int ciot_os_open_regular(const char *path, ciot_os_file_info *fi) {
    struct stat st;
    if (ciot_os_file_info_of(path, 1, fi) != 0) return -1;
    errno = 0;
    if (fi->kind != CIOT_OS_REGULAR) return -1;
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return -1;
    const int looked = fstat(fd, &st) == 0, saved = errno;
    if (looked) fill_info(&st, fi);
    if (looked && S_ISREG(st.st_mode)) return fd;
    close(fd);
    errno = looked ? 0 : saved;   /* looked: replaced since the stat, and refused all the same */
    return -1;
}

int ciot_os_read_full(int fd, void *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) return errno = 0, -1;
        got += (size_t)r;
    }
    return 0;
}

int ciot_os_close(int fd) { return close(fd); }
FILE *ciot_os_stream_of(int fd) { return fdopen(fd, "rb"); }

const void *ciot_os_map_read(int fd, size_t size) {
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    return m == MAP_FAILED ? NULL : m;
}

void ciot_os_unmap(const void *p, size_t size) {
    if (p) munmap((void *)p, size);
}

FILE *ciot_os_create_excl(const char *path, unsigned mode) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) return NULL;
    if (mode) (void)fchmod(fd, (mode_t)mode);
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        const int e = errno;
        close(fd);
        unlink(path);
        errno = e;
    }
    return f;
}

int ciot_os_replace(const char *from, const char *to) { return rename(from, to); }
int ciot_os_remove(const char *path) { return unlink(path); }
int ciot_os_mkdir(const char *path) { return mkdir(path, 0755); }
int ciot_os_exists(const char *path) { return access(path, F_OK) == 0; }

void ciot_os_temp_dir(char *buf, size_t len) {
    const char *dir = getenv("TMPDIR");
    snprintf(buf, len, "%s", dir && *dir ? dir : "/tmp");
}

/* The target opened for writing through; -1 with errno set when it cannot be. */
static int open_through(ciot_os_kind kind, const char *path, int fd_target, int fifo_wait_ms) {
    if (fd_target >= 0) return dup(fd_target);
    if (kind == CIOT_OS_SOCKET) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        if (strlen(path) >= sizeof a.sun_path) return errno = ENAMETOOLONG, -1;
        memcpy(a.sun_path, path, strlen(path) + 1);
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s >= 0 && connect(s, (const struct sockaddr *)&a, sizeof a) != 0) {
            const int e = errno;
            close(s);
            return errno = e, -1;
        }
        return s;
    }
    if (kind != CIOT_OS_FIFO) {
        int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
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
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
            return fd;
        }
        if (errno != ENXIO || waited >= fifo_wait_ms) return -1;
        ciot_os_sleep_ms(50);
    }
}

int ciot_os_write_through(const char *tmp, ciot_os_kind kind, const char *path, int fd, int fifo_wait_ms,
                          char *stage, size_t stage_len) {
    int in = open(tmp, O_RDONLY | O_CLOEXEC);
    if (in < 0) return snprintf(stage, stage_len, "cannot read back its temporary file"), 0;
    fflush(NULL);   /* what this process printed to the same descriptor goes first */
    int out = open_through(kind, path, fd, fifo_wait_ms);
    if (out < 0) {
        const int e = errno;
        close(in);
        if (e == ENXIO && kind == CIOT_OS_FIFO)
            snprintf(stage, stage_len, "no reader opened the FIFO in %d s", fifo_wait_ms / 1000);
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

void ciot_os_std_descriptors(void) {
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF && open("/dev/null", O_RDWR) != fd) return;
}

int ciot_os_list_dir(const char *dir, int (*fn)(const char *name, void *arg), void *arg) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (fn(e->d_name, arg)) break;
    }
    closedir(d);
    return 0;
}

/* ---- shared modules ---- */

ciot_os_module *ciot_os_module_open(const char *path) { return (ciot_os_module *)dlopen(path, RTLD_NOW | RTLD_LOCAL); }
void *ciot_os_module_symbol(ciot_os_module *m, const char *name) { return dlsym((void *)m, name); }
void ciot_os_module_close(ciot_os_module *m) {
    if (m) dlclose((void *)m);
}
const char *ciot_os_module_error(char *buf, size_t len) {
    const char *e = dlerror();
    snprintf(buf, len, "%s", e ? e : "no error");
    return buf;
}
const char *ciot_os_module_suffix(void) { return ".so"; }

int ciot_os_executable_path(char *buf, size_t len) {
    if (len < 2) return errno = ERANGE, -1;
    const ssize_t n = readlink("/proc/self/exe", buf, len);
    if (n < 0) return -1;
    if ((size_t)n >= len) return errno = ENAMETOOLONG, -1;   /* readlink truncates silently */
    buf[n] = 0;
    return 0;
}

/* ---- regular expressions ---- */

struct ciot_os_regex {
    regex_t re;
};

ciot_os_regex *ciot_os_regex_compile(const char *pattern, char *err, size_t len) {
    ciot_os_regex *r = malloc(sizeof *r);
    if (!r) return snprintf(err, len, "out of memory"), NULL;
    const int rc = regcomp(&r->re, pattern, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        regerror(rc, &r->re, err, len);
        free(r);
        return NULL;
    }
    return r;
}

int ciot_os_regex_search(const ciot_os_regex *r, const char *text) { return regexec(&r->re, text, 0, NULL, 0) == 0; }

void ciot_os_regex_free(ciot_os_regex *r) {
    if (!r) return;
    regfree(&r->re);
    free(r);
}
