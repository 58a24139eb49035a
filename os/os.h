/* The one seam between ciot and the operating system: every call into the OS goes through these functions,
 * implemented once per OS (os_posix.c: Linux; os_windows.c: Windows), so no other file includes an OS header
 * (tests/os_seam.py checks it). Below every floor: kernels/, pools/ and the harness may all include it. */
#ifndef CIOT_OS_H
#define CIOT_OS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* C11's _Alignas is alignas in C++ (bench's .cc files include this header through pool.h). */
#ifdef __cplusplus
#define CIOT_OS_ALIGNAS(n) alignas(n)
#else
#define CIOT_OS_ALIGNAS(n) _Alignas(n)
#endif

/* A file name's longest component, where limits.h does not say (mingw-w64). */
#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* ---- time, processes, the machine ---- */

/* Monotonic nanoseconds (CLOCK_MONOTONIC; QueryPerformanceCounter). */
uint64_t ciot_os_now_ns(void);
void ciot_os_sleep_ms(int ms);
long ciot_os_pid(void);
/* Logical CPUs online, every processor group counted; 0 when unknown. */
int ciot_os_cpus_online(void);
/* Physical memory, and the memory available to a new allocation without swapping; 0 when unknown. */
size_t ciot_os_memory_total(void);
size_t ciot_os_memory_available(void);
/* The three load averages ("0.52 0.58 0.59") into buf; 0 when the OS has none. */
int ciot_os_loadavg(char *buf, size_t len);
/* Host name, and "system release machine" (uname; the Windows version); 0 when unknown. */
int ciot_os_host_name(char *buf, size_t len);
int ciot_os_describe(char *buf, size_t len);
/* The first line a shell command prints (popen), '\0' when none; nothing on Windows (no POSIX shell). */
void ciot_os_command_line(const char *cmd, char *out, size_t n);
/* The CPU's model name ("unknown" when the OS does not say). */
const char *ciot_os_cpu_model(char *buf, size_t len);
/* struct tm's fields of the UTC time now, as strftime's "%Y-%m-%dT%H:%M:%SZ". */
void ciot_os_utc_now(char *buf, size_t len);

/* ---- CPU features the OS reports (x86 asks cpuid itself) ---- */

/* Linux: getauxval(AT_HWCAP) (word 1) or AT_HWCAP2 (word 2); 0 elsewhere. */
unsigned long ciot_os_arm_hwcap(int word);
/* Windows: IsProcessorFeaturePresent(feature); 0 elsewhere. */
int ciot_os_processor_feature(unsigned feature);

/* ---- threads, yielding, pinning lives in pools/pin.c (hwloc), priority ---- */

/* A thread, held by its creator until joined (no allocation: the spawn pool starts threads in timed code). */
typedef struct {
    CIOT_OS_ALIGNAS(16) unsigned char opaque[16];  /* pthread_t; the thread's HANDLE */
    void (*fn)(void *);
    void *arg;
} ciot_os_thread;
/* Starts fn(arg) on a new thread; 0 on success. t must stay where it is until joined. */
int ciot_os_thread_start(ciot_os_thread *t, void (*fn)(void *), void *arg);
void ciot_os_thread_join(ciot_os_thread *t);
void ciot_os_yield(void);
/* Runs init once per flag, the first caller's call finished before any caller returns; flag starts at 0. */
void ciot_os_once(int *flag, void (*init)(void));

/* The priority the caller asked for and what the OS did. Linux: the calling thread's nice value (threads
 * it creates afterwards inherit it). Windows: the process's priority class HIGH, with power throttling
 * (EcoQoS) turned off. */
typedef struct {
    int changed;    /* 1 when something was changed and must be restored */
    int old;        /* the nice value or priority class before */
} ciot_os_priority_saved;
/* Returns 1 when the priority is now at least that high; msg says what happened ("nice -5: ok"). */
int ciot_os_priority_raise(int nice, ciot_os_priority_saved *saved, char *msg, size_t len);
void ciot_os_priority_restore(const ciot_os_priority_saved *saved);

/* ---- stopping: SIGINT, SIGTERM, SIGHUP; the console control events ---- */

/* The stop signals' mask of the calling thread, saved while they are blocked (pool threads are created
 * with them blocked, so only the main thread takes them). Nothing on Windows, where the console handler
 * runs on a thread of its own. */
typedef struct {
    CIOT_OS_ALIGNAS(16) unsigned char opaque[256];
} ciot_os_stopmask;
void ciot_os_stop_block(ciot_os_stopmask *saved);
void ciot_os_stop_restore(const ciot_os_stopmask *saved);
/* Whether each stop signal is blocked in the calling thread (1), for tests; -1 when the OS has none. */
int ciot_os_stop_blocked(void);
/* On a stop signal (^C, kill; a console ^C, ^Break, close or logoff) calls cleanup, then ends the process as
 * the signal would (on Windows exit status 128 + 2 for ^C, 128 + 15 otherwise). A signal inherited as
 * ignored stays ignored. 0 on success. cleanup must do no more than remove files. */
int ciot_os_on_stop(void (*cleanup)(void));

/* ---- large buffers ---- */

/* bytes (rounded up to 2 MiB) of zeroed memory aligned to 2 MiB. huge: ask for huge pages (Linux:
 * madvise(MADV_HUGEPAGE), else MADV_NOHUGEPAGE; Windows: MEM_LARGE_PAGES when the SeLockMemoryPrivilege is
 * held, else normal pages). NULL on failure. */
void *ciot_os_bigbuf_alloc(size_t bytes, int huge);
void ciot_os_bigbuf_free(void *p, size_t bytes);
/* The fraction of p's mapping that huge pages back (Linux: /proc/self/smaps; Windows: 1 for a large-page
 * allocation, 0 otherwise), in [0, 1]; -1 when unknown. */
double ciot_os_huge_fraction(const void *p);

/* size bytes (rounded up to a multiple of align, a power of two) aligned to align; NULL on failure. Freed
 * by ciot_os_aligned_free only: Windows' _aligned_malloc memory cannot go to free. */
void *ciot_os_aligned_alloc(size_t align, size_t size);
void ciot_os_aligned_free(void *p);

/* A write stream into memory (open_memstream; a delete-on-close temporary file on Windows, whose C runtime has
 * no memory streams); NULL with errno set. Closed by ciot_os_memstream_close with the same text and len. */
FILE *ciot_os_memstream_open(char **text, size_t *len);
/* Closes it: *text (NUL-terminated, released with free) and *len are what was written; -1 when the stream
 * failed (*text may then be NULL). */
int ciot_os_memstream_close(FILE *f, char **text, size_t *len);

/* ---- files ---- */

/* Path separators: '/' on POSIX; '/' and '\\' on Windows. */
int ciot_os_is_sep(char c);

typedef enum {
    CIOT_OS_MISSING,    /* nothing there (errno ENOENT) */
    CIOT_OS_REGULAR,
    CIOT_OS_DIR,
    CIOT_OS_LINK,       /* a symbolic link (only when not followed) */
    CIOT_OS_FIFO,
    CIOT_OS_SOCKET,
    CIOT_OS_CHAR,       /* a character device (Windows: the console, NUL) */
    CIOT_OS_BLOCK,
} ciot_os_kind;

/* What a path is, and which file: dev + ino on POSIX, the volume serial number + file index on Windows. */
typedef struct {
    ciot_os_kind kind;
    uint64_t dev, ino;
    unsigned mode;      /* the permission bits (POSIX) */
    long long size;
} ciot_os_file_info;
/* follow: 1 follows symbolic links (stat), 0 does not (lstat). 0 with *fi filled; -1 with errno set
 * (ENOENT: fi->kind is CIOT_OS_MISSING). */
int ciot_os_file_info_of(const char *path, int follow, ciot_os_file_info *fi);
/* What a kind is, for messages: "a directory", "a FIFO", ... */
const char *ciot_os_kind_name(ciot_os_kind kind);
/* The target of a symbolic link, NUL-terminated; -1 with errno set. */
int ciot_os_readlink(const char *path, char *buf, size_t len);
/* Whether path is a link in the OS's view of the processes' descriptors (/proc/self/fd/N reached from
 * /dev/stdout): 1 when it is, with *fd the descriptor when it is one of this process's, else -1; 0 when it
 * is no such link (always on Windows). */
int ciot_os_descriptor_link(const char *path, int *fd);
/* Whether descriptor fd is open for writing. */
int ciot_os_fd_writable(int fd);
/* Whether this process may create files in dir (dir: 1) or write path (dir: 0); 0 with errno set if not. */
int ciot_os_can_write(const char *path, int dir);

/* Opens path read-only when it is a regular file (links followed) and only then: anything else is looked at,
 * never opened, so a FIFO cannot block. A descriptor with *fi filled, or -1: errno set when path could not be
 * looked at or opened, errno 0 when it is no regular file (fi->kind says what it is). */
int ciot_os_open_regular(const char *path, ciot_os_file_info *fi);
/* Reads exactly n bytes (retrying short reads); 0, or -1 with errno set (0 when the file ended early). */
int ciot_os_read_full(int fd, void *buf, size_t n);
int ciot_os_close(int fd);
/* A binary read stream on fd (which it then owns); NULL with errno set. */
FILE *ciot_os_stream_of(int fd);
/* A read-only private mapping of the first size bytes of fd; NULL with errno set. */
const void *ciot_os_map_read(int fd, size_t size);
void ciot_os_unmap(const void *p, size_t size);

/* Creates path exclusively (EEXIST when it exists) for writing, with mode's permission bits when mode is
 * not 0 (POSIX); NULL with errno set. */
FILE *ciot_os_create_excl(const char *path, unsigned mode);
/* Moves from onto to, replacing it in one step (rename; MoveFileExW with MOVEFILE_REPLACE_EXISTING). */
int ciot_os_replace(const char *from, const char *to);
/* Removes a file; 0, or -1 with errno set. Safe in a stop handler. */
int ciot_os_remove(const char *path);
/* Creates a directory; 0, or -1 with errno set (EEXIST when it is there). */
int ciot_os_mkdir(const char *path);
/* Whether path exists. */
int ciot_os_exists(const char *path);
/* The directory for temporary files ($TMPDIR or /tmp; GetTempPath). */
void ciot_os_temp_dir(char *buf, size_t len);
/* Copies file tmp through to a target that is never replaced (kind: CIOT_OS_CHAR or CIOT_OS_BLOCK device,
 * CIOT_OS_FIFO, CIOT_OS_SOCKET, or the descriptor fd when fd >= 0); a FIFO gets fifo_wait_ms to find a reader.
 * 1 on success; 0 with errno set and *stage saying which step failed. */
int ciot_os_write_through(const char *tmp, ciot_os_kind kind, const char *path, int fd, int fifo_wait_ms,
                          char *stage, size_t stage_len);
/* Keeps the standard descriptors 0, 1 and 2 open (on /dev/null when closed), so no file opened later takes
 * their numbers. */
void ciot_os_std_descriptors(void);

/* Lists a directory's entries (not "." and ".."): fn(name, arg) for each until it returns nonzero; -1 with
 * errno set when the directory cannot be read, else 0. */
int ciot_os_list_dir(const char *dir, int (*fn)(const char *name, void *arg), void *arg);

/* ---- regular expressions (POSIX extended: regcomp; std::regex's extended grammar on Windows) ---- */

typedef struct ciot_os_regex ciot_os_regex;
/* NULL when pattern is no regular expression (err says why) or memory ran out. */
ciot_os_regex *ciot_os_regex_compile(const char *pattern, char *err, size_t len);
/* 1 when the expression matches somewhere in text. */
int ciot_os_regex_search(const ciot_os_regex *re, const char *text);
void ciot_os_regex_free(ciot_os_regex *re);

/* ---- shared modules ---- */

typedef struct ciot_os_module ciot_os_module;
/* dlopen(RTLD_NOW | RTLD_LOCAL); LoadLibraryW. NULL on failure (ciot_os_module_error says why). */
ciot_os_module *ciot_os_module_open(const char *path);
void *ciot_os_module_symbol(ciot_os_module *m, const char *name);
void ciot_os_module_close(ciot_os_module *m);
/* The last failure of the calling thread's module calls, one line. */
const char *ciot_os_module_error(char *buf, size_t len);
/* A shared module's file name suffix: ".so"; ".dll". */
const char *ciot_os_module_suffix(void);
/* The running program's own file, NUL-terminated (/proc/self/exe; GetModuleFileNameW); -1 with errno set. */
int ciot_os_executable_path(char *buf, size_t len);

#endif
