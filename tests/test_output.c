/* Outputs and the files around them: ciot_out never replaces a symlink, device, FIFO, socket or
 * descriptor and refuses directories and missing or unwritable places; temporary files are removed by
 * SIGINT/SIGTERM (and kept registered only while they exist); the INCOMPLETE mark; the JSON writer's
 * output is valid UTF-8 JSON for any string. Ends with "N passed, M failed". */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"
#include "scratch.h"
#include "fileio.h"
#include "incomplete.h"
#include "json.h"
#include "json_check.h"
#include "tmpfiles.h"

/* Whole content of a file (NUL-terminated; *n its length), or NULL. */
static char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = calloc(1, 1 << 20);
    *n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    return buf;
}

static int has_content(const char *path, const char *want) {
    size_t n;
    char *got = slurp(path, &n);
    int ok = got && n == strlen(want) && !memcmp(got, want, n);
    free(got);
    return ok;
}

/* Files in d whose name holds ".tmp." (temporaries left behind). */
static int temps_in(const char *d) {
    DIR *dp = opendir(d);
    int n = 0;
    for (struct dirent *e; dp && (e = readdir(dp));) n += strstr(e->d_name, ".tmp.") != NULL;
    if (dp) closedir(dp);
    return n;
}

static int is_link(const char *p) {
    struct stat st;
    return lstat(p, &st) == 0 && S_ISLNK(st.st_mode);
}

static mode_t type_of(const char *p) {
    struct stat st;
    return lstat(p, &st) == 0 ? st.st_mode & S_IFMT : 0;
}

static void test_refusals(void) {
    char why[CIOT_WHY_MAX];
    CHECK(ciot_output_check(scratch_dir, why, sizeof why) == CIOT_E_ARG && strstr(why, "is a directory"),
          "a directory: %s", why);
    CHECK(ciot_output_check(scratch_at("missing/x.json"), why, sizeof why) == CIOT_E_ARG &&
              strstr(why, "no such directory"),
          "a missing directory: %s", why);
    CHECK(ciot_output_check(scratch_at("x/"), why, sizeof why) == CIOT_E_ARG, "a name ending in /: %s", why);
    CHECK(ciot_output_check("", why, sizeof why) == CIOT_E_ARG, "an empty name");
    CHECK(ciot_output_check("/proc/ciot-cannot-be-here", why, sizeof why) == CIOT_E_ARG,
          "a place nobody can create files");
    symlink("loop-b", scratch_at("loop-a"));
    symlink("loop-a", scratch_at("loop-b"));
    CHECK(ciot_output_check(scratch_at("loop-a"), why, sizeof why) == CIOT_E_ARG && strstr(why, "symbolic links"),
          "a symlink loop: %s", why);
    symlink(".", scratch_at("to-dir"));
    CHECK(ciot_output_check(scratch_at("to-dir"), why, sizeof why) == CIOT_E_ARG && strstr(why, "is a directory"),
          "a symlink to a directory: %s", why);
    symlink("nowhere/x.json", scratch_at("to-missing-dir"));
    CHECK(ciot_output_check(scratch_at("to-missing-dir"), why, sizeof why) == CIOT_E_ARG,
          "a symlink into a missing directory");
    int p[2];
    if (pipe(p) == 0) {
        char fdpath[64];
        snprintf(fdpath, sizeof fdpath, "/dev/fd/%d", p[0]);
        CHECK(ciot_output_check(fdpath, why, sizeof why) == CIOT_E_ARG && strstr(why, "not open for writing"),
              "a descriptor open for reading: %s", why);
        close(p[0]), close(p[1]);
    }
    CHECK(ciot_write_atomic(scratch_dir, "x", 1, why, sizeof why) == CIOT_E_ARG, "writing onto a directory is refused");
    CHECK(ciot_output_check(scratch_at("fresh.json"), why, sizeof why) == CIOT_OK &&
              access(scratch_at("fresh.json"), F_OK) != 0,
          "a new name is fine and the check creates nothing: %s", why);
    CHECK(temps_in(scratch_dir) == 0, "no temporary file left by the checks");
}

static void test_regular(void) {
    char why[CIOT_WHY_MAX];
    CHECK(ciot_write_atomic(scratch_at("a.bin"), "hello", 5, why, sizeof why) == CIOT_OK &&
              has_content(scratch_at("a.bin"), "hello"),
          "a new file: %s", why);
    chmod(scratch_at("a.bin"), 0640);
    CHECK(ciot_write_atomic(scratch_at("a.bin"), "again", 5, why, sizeof why) == CIOT_OK &&
              has_content(scratch_at("a.bin"), "again"),
          "a file replaced: %s", why);
    struct stat st;
    CHECK(stat(scratch_at("a.bin"), &st) == 0 && (st.st_mode & 07777) == 0640, "it keeps its permission bits (%o)",
          (unsigned)(st.st_mode & 07777));
    /* A relative symlink into another directory: that directory gets the file and the temporary. */
    mkdir(scratch_at("other"), 0700);
    symlink("other/target.json", scratch_at("link.json"));
    CHECK(ciot_write_atomic(scratch_at("link.json"), "{}", 2, why, sizeof why) == CIOT_OK,
          "through a dangling link: %s", why);
    CHECK(is_link(scratch_at("link.json")) && has_content(scratch_at("other/target.json"), "{}"),
          "the link stays a link and its target is written");
    CHECK(ciot_write_atomic(scratch_at("link.json"), "[]", 2, why, sizeof why) == CIOT_OK &&
              is_link(scratch_at("link.json")) && has_content(scratch_at("other/target.json"), "[]"),
          "a link to an existing file: the file is replaced, the link stays");
    CHECK(temps_in(scratch_dir) == 0 && temps_in(scratch_at("other")) == 0, "no temporary file left");

    /* A writer that opens the temporary file by name, as Google Benchmark does with --benchmark_out. */
    ciot_out *o;
    CHECK(ciot_out_open(scratch_at("byname.json"), &o, why, sizeof why) == CIOT_OK, "open: %s", why);
    FILE *f = fopen(ciot_out_temp_path(o), "w");
    if (f) fputs("by name", f), fclose(f);
    CHECK(access(scratch_at("byname.json"), F_OK) != 0, "nothing at the target before the commit");
    CHECK(ciot_out_commit(o, why, sizeof why) == CIOT_OK && has_content(scratch_at("byname.json"), "by name"),
          "the external writer's content is committed: %s", why);
    CHECK(ciot_out_open(scratch_at("a.bin"), &o, why, sizeof why) == CIOT_OK, "open again");
    fputs("lost", ciot_out_stream(o));
    ciot_out_abort(o);
    CHECK(has_content(scratch_at("a.bin"), "again") && temps_in(scratch_dir) == 0,
          "abort leaves the target and no temporary");
    CHECK(ciot_tmpfiles_count() == 0, "every temporary was released (%d registered)", ciot_tmpfiles_count());
}

/* Reads everything from fd into buf; returns the length. */
static size_t drain(int fd, char *buf, size_t cap) {
    size_t n = 0;
    for (ssize_t r; n < cap && (r = read(fd, buf + n, cap - n)) > 0;) n += (size_t)r;
    return n;
}

typedef struct {
    const char *path;
    int listen_fd;
    char got[256];
    size_t n;
} reader;

/* A reader thread: accepts one connection on listen_fd (a socket), or opens path (a FIFO), and reads
 * everything. */
static void *read_all(void *arg) {
    reader *r = arg;
    int fd = r->listen_fd >= 0 ? accept(r->listen_fd, NULL, NULL) : open(r->path, O_RDONLY);
    if (fd >= 0) r->n = drain(fd, r->got, sizeof r->got - 1), close(fd);
    return NULL;
}

/* text written to path (a FIFO or a listening socket) while a thread reads it: the same text arrives
 * and the node keeps its type. */
static void check_through(const char *what, const char *path, int listen_fd, const char *text, mode_t type) {
    char why[CIOT_WHY_MAX] = "";
    reader r = {path, listen_fd, {0}, 0};
    pthread_t th;
    pthread_create(&th, NULL, read_all, &r);
    ciot_status st = ciot_write_atomic(path, text, strlen(text), why, sizeof why);
    pthread_join(th, NULL);
    CHECK(st == CIOT_OK && r.n == strlen(text) && !memcmp(r.got, text, r.n), "%s is written through: %s", what, why);
    CHECK(type_of(path) == type, "%s is still what it was", what);
}

static void test_write_through(void) {
    char why[CIOT_WHY_MAX];
    const char *fifo = scratch_at("fifo");
    if (mkfifo(fifo, 0600) == 0) {
        check_through("a FIFO", fifo, -1, "through the fifo", S_IFIFO);
        /* and without a reader: refused after a bounded wait, not a hang */
        ciot_status st = ciot_write_atomic(fifo, "nobody", 6, why, sizeof why);
        CHECK(st == CIOT_E_IO && strstr(why, "no reader"), "a FIFO nobody reads fails in seconds: %s", why);
        CHECK(type_of(fifo) == S_IFIFO, "and is left alone");
    } else {
        printf("SKIP FIFO: mkfifo failed: %s (not counted)\n", strerror(errno));
    }
    const char *sock = scratch_at("sock");
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", sock);
    if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 && listen(s, 1) == 0)
        check_through("a Unix socket", sock, s, "to a socket", S_IFSOCK);
    else
        printf("SKIP socket: %s (not counted)\n", strerror(errno));
    if (s >= 0) close(s);
    /* a descriptor of this process, named as /dev/fd/N and as a symlink to /proc/self/fd/N */
    int p[2];
    if (pipe(p) == 0) {
        char fdpath[64];
        snprintf(fdpath, sizeof fdpath, "/dev/fd/%d", p[1]);
        symlink(fdpath, scratch_at("stdout-like"));
        CHECK(ciot_write_atomic(fdpath, "fd ", 3, why, sizeof why) == CIOT_OK, "/dev/fd/N: %s", why);
        CHECK(ciot_write_atomic(scratch_at("stdout-like"), "link", 4, why, sizeof why) == CIOT_OK,
              "a link to /dev/fd/N: %s", why);
        close(p[1]);
        char got[64] = {0};
        size_t n = drain(p[0], got, sizeof got - 1);
        close(p[0]);
        CHECK(n == 7 && !memcmp(got, "fd link", 7), "the descriptor got both writes, in order ('%s')", got);
        CHECK(is_link(scratch_at("stdout-like")), "the link stays");
    }
    /* character devices of our own (mknod), so a regression could never replace the real /dev/null */
    if (mknod(scratch_at("null"), S_IFCHR | 0666, makedev(1, 3)) == 0 &&
        mknod(scratch_at("full"), S_IFCHR | 0666, makedev(1, 7)) == 0) {
        int fd = open(scratch_at("null"), O_WRONLY);
        if (fd >= 0) {
            close(fd);
            CHECK(ciot_write_atomic(scratch_at("null"), "gone", 4, why, sizeof why) == CIOT_OK,
                  "a device is written: %s", why);
            CHECK(type_of(scratch_at("null")) == S_IFCHR, "a device stays a device");
            ciot_status st = ciot_write_atomic(scratch_at("full"), "no room", 7, why, sizeof why);
            CHECK(st == CIOT_E_IO && strstr(why, strerror(ENOSPC)), "a full device is an i/o error naming ENOSPC: %s",
                  why);
            CHECK(type_of(scratch_at("full")) == S_IFCHR, "the full device stays a device");
            ciot_json *j;
            CHECK(ciot_json_create(scratch_at("full"), &j, why, sizeof why) == CIOT_OK, "json on a full device opens");
            ciot_json_begin_object(j);
            ciot_json_kv_int(j, "x", 1);
            ciot_json_end_object(j);
            CHECK(ciot_json_commit(j, why, sizeof why) == CIOT_E_IO && strstr(why, strerror(ENOSPC)),
                  "json on a full device fails at commit: %s", why);
        } else {
            printf("SKIP devices: this file system does not open device nodes (not counted)\n");
        }
    } else {
        printf("SKIP devices: mknod refused: %s (not counted)\n", strerror(errno));
    }
    CHECK(temps_in(scratch_dir) == 0 && ciot_tmpfiles_count() == 0, "no temporary left or registered");
}

/* In a child: registers a temporary file, then gets `sig`; the parent sees how it ended. */
static void signal_case(int sig, int ignore_first, const char *what) {
    const char *tmp = scratch_at("victim.tmp.1");
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) close(fd);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (ignore_first) signal(sig, SIG_IGN);
        int slot;
        if (ciot_tmpfiles_install() != CIOT_OK || ciot_tmpfile_register(tmp, &slot) != CIOT_OK) _exit(3);
        raise(sig);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (ignore_first) {
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && access(tmp, F_OK) == 0,
              "%s: an ignored signal stays ignored (status %#x)", what, status);
    } else {
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == sig, "%s: the process dies of the signal (status %#x)", what,
              status);
        CHECK(access(tmp, F_OK) != 0, "%s: the registered temporary is gone", what);
    }
    unlink(tmp);
}

static void test_tmpfiles(void) {
    int slots[CIOT_TMPFILES_MAX + 1], n = 0;
    while (n <= CIOT_TMPFILES_MAX && ciot_tmpfile_register("/nonexistent/x.tmp.1", &slots[n]) == CIOT_OK) n++;
    CHECK(n == CIOT_TMPFILES_MAX && ciot_tmpfiles_count() == n, "%d registrations fit (%d)", CIOT_TMPFILES_MAX, n);
    int extra;
    CHECK(ciot_tmpfile_register("/x", &extra) == CIOT_E_NOMEM && extra == -1, "one more is CIOT_E_NOMEM");
    for (int i = 0; i < n; i++) ciot_tmpfile_release(slots[i]);
    CHECK(ciot_tmpfiles_count() == 0, "all released");
    CHECK(ciot_tmpfile_register("", &extra) == CIOT_E_ARG, "an empty path is refused");
    signal_case(SIGINT, 0, "SIGINT");
    signal_case(SIGTERM, 0, "SIGTERM");
    signal_case(SIGINT, 1, "SIGINT inherited as ignored");
}

static void test_incomplete(void) {
    char why[CIOT_WHY_MAX];
    mkdir(scratch_at("run"), 0700);
    CHECK(ciot_run_mark_incomplete(scratch_at("run"), "ciot suite", why, sizeof why) == CIOT_OK &&
              ciot_run_is_incomplete(scratch_at("run")),
          "marked: %s", why);
    size_t n;
    char *text = slurp(scratch_at("run/INCOMPLETE"), &n);
    CHECK(text && strstr(text, "incomplete") && strstr(text, "ciot suite") && n > 0 && text[n - 1] == '\n',
          "the mark says what it is in one line: %s", text ? text : "(none)");
    free(text);
    CHECK(ciot_run_mark_complete(scratch_at("run"), why, sizeof why) == CIOT_OK &&
              !ciot_run_is_incomplete(scratch_at("run")),
          "cleared");
    CHECK(ciot_run_mark_complete(scratch_at("run"), why, sizeof why) == CIOT_OK, "clearing twice is fine");
    CHECK(ciot_run_mark_incomplete(scratch_at("no-such-run"), "x", why, sizeof why) == CIOT_E_ARG,
          "a missing folder is refused");
    CHECK(temps_in(scratch_at("run")) == 0, "no temporary left");
}

/* One string through the writer; the document must be valid JSON and hold want (the escaped string). */
static void json_string_case(const char *s, const char *want) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ciot_json *j;
    ciot_json_stream(f, &j);
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, s, s);   /* as a key and as a value */
    ciot_json_end_object(j);
    ciot_status st = ciot_json_close(j);
    fclose(f);
    char expect[256];
    snprintf(expect, sizeof expect, "{\n  \"%s\": \"%s\"\n}\n", want, want);
    CHECK(st == CIOT_OK && json_valid(buf, len), "valid JSON for bytes of '%s': %s", want, buf);
    CHECK(buf && !strcmp(buf, expect), "'%s' written as expected: %s", want, buf);
    free(buf);
}

static void test_json_strings(void) {
    const char *R = "\xef\xbf\xbd";   /* U+FFFD */
    char w[64];
    json_string_case("plain", "plain");
    json_string_case("caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xef\xbf\xbf",
                     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xef\xbf\xbf");
    json_string_case("q\"b\\\x01\x1f\x7f", "q\\\"b\\\\\\u0001\\u001f\x7f");
    snprintf(w, sizeof w, "a%sb", R);
    json_string_case("a\x80" "b", w);                      /* a stray continuation byte */
    snprintf(w, sizeof w, "%s%s", R, R);
    json_string_case("\xc0\x80", w);                      /* overlong NUL */
    snprintf(w, sizeof w, "%s%s%s", R, R, R);
    json_string_case("\xed\xa0\x80", w);                  /* a surrogate */
    snprintf(w, sizeof w, "%s%s%s%s", R, R, R, R);
    json_string_case("\xf4\x90\x80\x80", w);              /* past U+10FFFF */
    snprintf(w, sizeof w, "x%s", R);
    json_string_case("x\xff", w);
    snprintf(w, sizeof w, "%s%s", R, R);
    json_string_case("\xe2\x82", w);                      /* cut short by the end */
    snprintf(w, sizeof w, "%sA", R);
    json_string_case("\xe2" "A", w);                      /* cut short by an ASCII byte */
    /* every byte value after a lead byte: the output is always valid */
    int bad = 0;
    for (int lead = 0x80; lead <= 0xff; lead++)
        for (int next = 1; next <= 0xff; next++) {
            char s[4] = {(char)lead, (char)next, 0, 0}, *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            ciot_json *j;
            ciot_json_stream(f, &j);
            ciot_json_string(j, s);
            ciot_json_close(j);
            fclose(f);
            bad += !json_valid(buf, len);
            free(buf);
        }
    CHECK(bad == 0, "every two-byte string from a byte >= 0x80 gives valid JSON (%d did not)", bad);
    /* the check itself rejects what the writer must never write */
    CHECK(!json_valid("\"\xff\"", 3) && !json_valid("\"a\nb\"", 5) && !json_valid("{\"a\":1,}", 8) &&
              !json_valid("01", 2) && json_valid(" [1.5e-3, true, null, \"\\u00e9\"] ", 32),
          "the validator knows valid from invalid");
}

static void test_json_files(void) {
    char why[CIOT_WHY_MAX];
    ciot_json *j;
    CHECK(ciot_json_create(scratch_dir, &j, why, sizeof why) == CIOT_E_ARG && strstr(why, "is a directory"),
          "json onto a directory is refused at once: %s", why);
    CHECK(ciot_json_create(scratch_at("nope/x.json"), &j, why, sizeof why) == CIOT_E_ARG &&
              strstr(why, "no such directory"),
          "json in a missing directory is refused at once: %s", why);
    symlink("real.json", scratch_at("alias.json"));
    CHECK(ciot_json_create(scratch_at("alias.json"), &j, why, sizeof why) == CIOT_OK, "json through a link: %s", why);
    ciot_json_begin_array(j);
    ciot_json_end_array(j);
    CHECK(ciot_json_commit(j, why, sizeof why) == CIOT_OK && is_link(scratch_at("alias.json")) &&
              has_content(scratch_at("real.json"), "[]\n"),
          "the link stays, its target holds the document");
    CHECK(ciot_json_create(scratch_at("half.json"), &j, why, sizeof why) == CIOT_OK, "open");
    ciot_json_begin_object(j);
    CHECK(ciot_json_commit(j, why, sizeof why) == CIOT_E_ARG && access(scratch_at("half.json"), F_OK) != 0 &&
              temps_in(scratch_dir) == 0,
          "an unfinished document leaves nothing: %s", why);
}

int main(void) {
    if (!scratch_make("output")) return printf("cannot create %s\n", scratch_dir), 1;
    test_refusals();
    test_regular();
    test_write_through();
    test_tmpfiles();
    test_incomplete();
    test_json_strings();
    test_json_files();
    scratch_remove();
    return check_summary();
}
