/* The OS seam (os.h) on Windows (Win32 calls; mingw-w64's C runtime for descriptors and streams). */
#include "os.h"

#include <errno.h>
#include <direct.h>
#include <fcntl.h>
#include <io.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <windows.h>

/* ---- the C runtime ---- */

/* mingw-w64's fmaf is not correctly rounded, and every scalar reference kernel relies on one fused rounding
 * (the SIMD kernels use the FMA instruction): this definition, in an object every link pulls in, takes its
 * place. x*y is exact in double; the sum is rounded to odd, so its rounding to float is the fused one. */
float fmaf(float x, float y, float z) {
    const double xy = (double)x * (double)y, s = xy + (double)z;
    if (!isfinite(s)) return (float)s;
    const double zb = s - xy, err = (xy - (s - zb)) + ((double)z - zb);   /* s + err == xy + z exactly */
    uint64_t u;
    memcpy(&u, &s, sizeof u);
    if (err != 0 && !(u & 1)) {
        u += (err > 0) == (s > 0) ? 1 : (uint64_t)-1;  /* toward the exact sum: an odd last bit */
    }
    double r;
    memcpy(&r, &u, sizeof r);
    return (float)r;
}

/* ---- time, processes, the machine ---- */

uint64_t ciot_os_now_ns(void) {
    static LARGE_INTEGER freq;
    LARGE_INTEGER now;
    if (!freq.QuadPart) QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    const uint64_t s = (uint64_t)now.QuadPart / (uint64_t)freq.QuadPart;
    const uint64_t rest = (uint64_t)now.QuadPart % (uint64_t)freq.QuadPart;
    return s * 1000000000u + rest * 1000000000u / (uint64_t)freq.QuadPart;
}

void ciot_os_sleep_ms(int ms) { Sleep((DWORD)ms); }
long ciot_os_pid(void) { return (long)GetCurrentProcessId(); }

/* Every processor group: a machine with more than 64 logical CPUs has several. */
int ciot_os_cpus_online(void) {
    DWORD n = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    return n > 0 && n < 0x7fffffff ? (int)n : 0;
}

size_t ciot_os_memory_total(void) {
    MEMORYSTATUSEX m = {.dwLength = sizeof m};
    return GlobalMemoryStatusEx(&m) ? (size_t)m.ullTotalPhys : 0;
}

size_t ciot_os_memory_available(void) {
    MEMORYSTATUSEX m = {.dwLength = sizeof m};
    return GlobalMemoryStatusEx(&m) ? (size_t)m.ullAvailPhys : 0;
}

int ciot_os_loadavg(char *buf, size_t len) { return 0; }

int ciot_os_host_name(char *buf, size_t len) {
    DWORD n = (DWORD)len;
    return len > 1 && GetComputerNameExA(ComputerNameDnsHostname, buf, &n);
}

int ciot_os_describe(char *buf, size_t len) {
    /* GetVersionEx reports what the manifest allows; RtlGetVersion the real build */
    typedef LONG(WINAPI * get_version)(OSVERSIONINFOW *);
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    get_version rtl = ntdll ? (get_version)(void (*)(void))GetProcAddress(ntdll, "RtlGetVersion") : NULL;
    OSVERSIONINFOW v = {.dwOSVersionInfoSize = sizeof v};
    SYSTEM_INFO si;
    GetNativeSystemInfo(&si);
    const char *machine = si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64   ? "x86_64"
                        : si.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_ARM64 ? "aarch64"
                                                                                     : "unknown";
    if (!rtl || rtl(&v) != 0) return snprintf(buf, len, "Windows unknown %s", machine), 1;
    snprintf(buf, len, "Windows %lu.%lu.%lu %s", v.dwMajorVersion, v.dwMinorVersion, v.dwBuildNumber, machine);
    return 1;
}

void ciot_os_command_line(const char *cmd, char *out, size_t n) { out[0] = 0; }

const char *ciot_os_cpu_model(char *buf, size_t len) {
    DWORD n = (DWORD)len;
    if (RegGetValueA(HKEY_LOCAL_MACHINE, "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                     "ProcessorNameString", RRF_RT_REG_SZ, NULL, buf, &n) != ERROR_SUCCESS || !buf[0])
        snprintf(buf, len, "unknown");
    return buf;
}

void ciot_os_utc_now(char *buf, size_t len) {
    const time_t now = time(NULL);
    struct tm utc;
    if (gmtime_s(&utc, &now) != 0) memset(&utc, 0, sizeof utc);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &utc);
}

/* ---- CPU features ---- */

unsigned long ciot_os_arm_hwcap(int word) { return 0; }
int ciot_os_processor_feature(unsigned feature) { return IsProcessorFeaturePresent((DWORD)feature) != 0; }

/* ---- threads ---- */

_Static_assert(sizeof(HANDLE) <= sizeof(((ciot_os_thread *)0)->opaque), "a HANDLE fits a thread");

static DWORD WINAPI thread_main(LPVOID v) {
    ciot_os_thread *t = v;
    t->fn(t->arg);
    return 0;
}

int ciot_os_thread_start(ciot_os_thread *t, void (*fn)(void *), void *arg) {
    t->fn = fn, t->arg = arg;
    HANDLE h = CreateThread(NULL, 0, thread_main, t, 0, NULL);
    memcpy(t->opaque, &h, sizeof h);
    return h ? 0 : -1;
}

void ciot_os_thread_join(ciot_os_thread *t) {
    HANDLE h;
    memcpy(&h, t->opaque, sizeof h);
    WaitForSingleObject(h, INFINITE);
    CloseHandle(h);
}

void ciot_os_yield(void) { SwitchToThread(); }

/* ---- priority: the process's class (threads inherit it), and no power throttling of its threads ---- */

/* EcoQoS: Windows 11 may run a background-looking process on efficiency cores at low clocks. */
static int throttling_off(void) {
#if defined(PROCESS_POWER_THROTTLING_CURRENT_VERSION)
    PROCESS_POWER_THROTTLING_STATE s = {.Version = PROCESS_POWER_THROTTLING_CURRENT_VERSION,
                                        .ControlMask = PROCESS_POWER_THROTTLING_EXECUTION_SPEED,
                                        .StateMask = 0};
    return SetProcessInformation(GetCurrentProcess(), ProcessPowerThrottling, &s, sizeof s) != 0;
#else
    return 0;
#endif
}

int ciot_os_priority_raise(int nice, ciot_os_priority_saved *saved, char *msg, size_t len) {
    saved->changed = 0;
    const DWORD old = GetPriorityClass(GetCurrentProcess());
    saved->old = (int)old;
    const int throttle = throttling_off();
    const char *eco = throttle ? "power throttling off" : "power throttling unchanged";
    if (!old) {
        snprintf(msg, len, "priority class high: could not read (error %lu); %s", GetLastError(), eco);
        return 0;
    }
    if (old == HIGH_PRIORITY_CLASS || old == REALTIME_PRIORITY_CLASS) {
        snprintf(msg, len, "priority class high: already; %s", eco);
        return 1;
    }
    if (!SetPriorityClass(GetCurrentProcess(), HIGH_PRIORITY_CLASS)) {
        snprintf(msg, len, "priority class high: refused (error %lu); %s", GetLastError(), eco);
        return 0;
    }
    saved->changed = 1;
    snprintf(msg, len, "priority class high: ok; %s", eco);
    return 1;
}

void ciot_os_priority_restore(const ciot_os_priority_saved *saved) {
    if (saved->changed) SetPriorityClass(GetCurrentProcess(), (DWORD)saved->old);
}

/* ---- stopping: the console control handler runs on a thread of its own ---- */

void ciot_os_stop_block(ciot_os_stopmask *saved) { memset(saved, 0, sizeof *saved); }
void ciot_os_stop_restore(const ciot_os_stopmask *saved) {}
int ciot_os_stop_blocked(void) { return -1; }

static void (*stop_cleanup)(void);

static BOOL WINAPI on_console(DWORD event) {
    stop_cleanup();
    /* what a shell reports for SIGINT and SIGTERM, so scripts read both OSes alike */
    ExitProcess(event == CTRL_C_EVENT ? 128 + 2 : 128 + 15);
    return TRUE;
}

int ciot_os_on_stop(void (*cleanup)(void)) {
    stop_cleanup = cleanup;
    return SetConsoleCtrlHandler(on_console, TRUE) ? 0 : -1;
}

/* ---- large buffers ---- */

enum { HUGE_ALIGN = 2 << 20, MAX_LARGE = 64 };

static size_t round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* The large-page allocations still live, for ciot_os_huge_fraction. */
static void *volatile large[MAX_LARGE];

/* Large pages need SeLockMemoryPrivilege enabled in the token; 1 when it is. */
static int lock_memory_privilege(void) {
    static int state = -1;
    if (state >= 0) return state;
    HANDLE token;
    TOKEN_PRIVILEGES tp = {.PrivilegeCount = 1};
    state = 0;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &token)) return state;
    if (LookupPrivilegeValueA(NULL, "SeLockMemoryPrivilege", &tp.Privileges[0].Luid)) {
        tp.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
        state = AdjustTokenPrivileges(token, FALSE, &tp, 0, NULL, NULL) && GetLastError() == ERROR_SUCCESS;
    }
    CloseHandle(token);
    return state;
}

void *ciot_os_bigbuf_alloc(size_t bytes, int huge) {
    if (bytes == 0) return NULL;
    const size_t len = round_up(bytes, HUGE_ALIGN);
    const size_t page = GetLargePageMinimum();
    if (huge && page && HUGE_ALIGN % page == 0 && lock_memory_privilege()) {
        void *p = VirtualAlloc(NULL, len, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, PAGE_READWRITE);
        if (p && ((uintptr_t)p % HUGE_ALIGN) == 0) {
            for (int i = 0; i < MAX_LARGE; i++)
                if (!large[i]) { large[i] = p; break; }
            return p;
        }
        if (p) VirtualFree(p, 0, MEM_RELEASE);
    }
    /* Reserve one extra alignment unit, then commit an aligned window of len bytes inside it. */
    for (int tries = 0; tries < 8; tries++) {
        char *raw = VirtualAlloc(NULL, len + HUGE_ALIGN, MEM_RESERVE, PAGE_NOACCESS);
        if (!raw) return NULL;
        char *p = (char *)round_up((uintptr_t)raw, HUGE_ALIGN);
        VirtualFree(raw, 0, MEM_RELEASE);
        /* another thread may take the range between the release and this reservation: try again */
        void *got = VirtualAlloc(p, len, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
        if (got == p) return p;
        if (got) VirtualFree(got, 0, MEM_RELEASE);
    }
    return NULL;
}

void ciot_os_bigbuf_free(void *p, size_t bytes) {
    if (!p) return;
    for (int i = 0; i < MAX_LARGE; i++)
        if (large[i] == p) large[i] = NULL;
    VirtualFree(p, 0, MEM_RELEASE);
}

double ciot_os_huge_fraction(const void *p) {
    for (int i = 0; i < MAX_LARGE; i++)
        if (large[i] == p) return 1;
    return 0;
}

void *ciot_os_aligned_alloc(size_t align, size_t size) {
    return _aligned_malloc((size + align - 1) / align * align, align);
}

void ciot_os_aligned_free(void *p) { _aligned_free(p); }

/* The C runtime deletes the file when the stream closes ("D"), or the system when the process ends. */
FILE *ciot_os_memstream_open(char **text, size_t *len) {
    wchar_t dir[MAX_PATH + 1], name[MAX_PATH + 1];
    *text = NULL, *len = 0;
    const DWORD n = GetTempPathW(MAX_PATH + 1, dir);
    if (n == 0 || n > MAX_PATH || !GetTempFileNameW(dir, L"ciot", 0, name)) return errno = EACCES, NULL;
    FILE *f = _wfopen(name, L"w+bD");
    if (!f) DeleteFileW(name);
    return f;
}

int ciot_os_memstream_close(FILE *f, char **text, size_t *len) {
    *text = NULL, *len = 0;
    long size = -1;
    if (fflush(f) == 0 && fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    char *buf = size >= 0 ? malloc((size_t)size + 1) : NULL;
    int ok = buf && fseek(f, 0, SEEK_SET) == 0 && fread(buf, 1, (size_t)size, f) == (size_t)size;
    ok = fclose(f) == 0 && ok;
    if (!ok) {
        free(buf);
        return -1;
    }
    buf[size] = 0;
    *text = buf, *len = (size_t)size;
    return 0;
}

/* ---- files ---- */

int ciot_os_is_sep(char c) { return c == '/' || c == '\\'; }

/* path in UTF-16 as the C runtime's narrow calls read it (the ANSI code page); 0 when it does not fit. */
static int wide(const char *path, wchar_t *w, int n) {
    return MultiByteToWideChar(CP_ACP, 0, path, -1, w, n) > 0;
}

/* The volume serial number and file index: what st_dev and st_ino are on POSIX. */
static int file_identity(const char *path, uint64_t *dev, uint64_t *ino) {
    HANDLE h = CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE) return 0;
    BY_HANDLE_FILE_INFORMATION bi;
    const int ok = GetFileInformationByHandle(h, &bi) != 0;
    CloseHandle(h);
    if (ok) *dev = bi.dwVolumeSerialNumber, *ino = ((uint64_t)bi.nFileIndexHigh << 32) | bi.nFileIndexLow;
    return ok;
}

/* Whether a leading part of path names something other than a directory: POSIX says ENOTDIR there, where
 * Windows says only that the path is not found. */
static int through_non_dir(const char *path) {
    char part[MAX_PATH + 1];
    for (size_t i = 1; path[i] && i < sizeof part; i++) {
        if (!ciot_os_is_sep(path[i])) continue;
        memcpy(part, path, i);
        part[i] = 0;
        struct _stat64 st;
        if (_stat64(part, &st) == 0 && (st.st_mode & _S_IFMT) != _S_IFDIR) return 1;
    }
    return 0;
}

int ciot_os_file_info_of(const char *path, int follow, ciot_os_file_info *fi) {
    struct _stat64 st;
    memset(fi, 0, sizeof *fi);
    if (_stat64(path, &st) != 0) {
        if (errno == ENOENT && through_non_dir(path)) errno = ENOTDIR;
        fi->kind = CIOT_OS_MISSING;
        return -1;
    }
    fi->kind = (st.st_mode & _S_IFMT) == _S_IFREG ? CIOT_OS_REGULAR : (st.st_mode & _S_IFMT) == _S_IFDIR ? CIOT_OS_DIR
             : (st.st_mode & _S_IFMT) == _S_IFIFO ? CIOT_OS_FIFO : CIOT_OS_CHAR;
    fi->size = (long long)st.st_size;
    if (fi->kind == CIOT_OS_REGULAR || fi->kind == CIOT_OS_DIR) file_identity(path, &fi->dev, &fi->ino);
    return 0;
}

int ciot_os_readlink(const char *path, char *buf, size_t len) { return errno = EINVAL, -1; }
int ciot_os_descriptor_link(const char *path, int *fd) { return 0; }
int ciot_os_fd_writable(int fd) { return 0; }

int ciot_os_can_write(const char *path, int dir) {
    if (dir) return _access(path, 0) == 0;   /* folders' write access shows only when a file is created */
    return _access(path, 2) == 0;
}

int ciot_os_open_regular(const char *path, ciot_os_file_info *fi) {
    if (ciot_os_file_info_of(path, 1, fi) != 0) return -1;
    errno = 0;
    if (fi->kind != CIOT_OS_REGULAR) return -1;
    return _open(path, _O_RDONLY | _O_BINARY | _O_NOINHERIT);
}

int ciot_os_read_full(int fd, void *buf, size_t n) {
    size_t got = 0;
    while (got < n) {
        const size_t ask = n - got > (1u << 30) ? (1u << 30) : n - got;
        int r = _read(fd, (char *)buf + got, (unsigned)ask);
        if (r < 0) return -1;
        if (r == 0) return errno = 0, -1;
        got += (size_t)r;
    }
    return 0;
}

int ciot_os_close(int fd) { return _close(fd); }
FILE *ciot_os_stream_of(int fd) { return _fdopen(fd, "rb"); }

const void *ciot_os_map_read(int fd, size_t size) {
    HANDLE file = (HANDLE)_get_osfhandle(fd);
    if (file == INVALID_HANDLE_VALUE) return errno = EBADF, NULL;
    HANDLE map = CreateFileMappingW(file, NULL, PAGE_READONLY, 0, 0, NULL);
    if (!map) return errno = EIO, NULL;
    const void *p = MapViewOfFile(map, FILE_MAP_READ, 0, 0, size);
    CloseHandle(map);   /* the view keeps the mapping */
    if (!p) errno = ENOMEM;
    return p;
}

void ciot_os_unmap(const void *p, size_t size) {
    if (p) UnmapViewOfFile(p);
}

FILE *ciot_os_create_excl(const char *path, unsigned mode) {
    int fd = _open(path, _O_WRONLY | _O_CREAT | _O_EXCL | _O_BINARY | _O_NOINHERIT, _S_IREAD | _S_IWRITE);
    if (fd < 0) return NULL;
    FILE *f = _fdopen(fd, "wb");
    if (!f) {
        const int e = errno;
        _close(fd);
        _unlink(path);
        errno = e;
    }
    return f;
}

/* Windows error codes to the errno values the messages print. */
static int errno_of(DWORD e) {
    switch (e) {
    case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND: return ENOENT;
    case ERROR_ACCESS_DENIED: case ERROR_SHARING_VIOLATION: case ERROR_LOCK_VIOLATION: return EACCES;
    case ERROR_ALREADY_EXISTS: case ERROR_FILE_EXISTS: return EEXIST;
    case ERROR_DISK_FULL: return ENOSPC;
    case ERROR_NOT_SAME_DEVICE: return EXDEV;
    default: return EIO;
    }
}

int ciot_os_replace(const char *from, const char *to) {
    wchar_t wf[MAX_PATH * 4], wt[MAX_PATH * 4];
    if (!wide(from, wf, MAX_PATH * 4) || !wide(to, wt, MAX_PATH * 4)) return errno = ENAMETOOLONG, -1;
    if (MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) return 0;
    errno = errno_of(GetLastError());
    return -1;
}

int ciot_os_remove(const char *path) { return _unlink(path); }
int ciot_os_mkdir(const char *path) {
    if (_mkdir(path) == 0) return 0;
    if (errno == ENOENT && through_non_dir(path)) errno = ENOTDIR;
    return -1;
}
int ciot_os_exists(const char *path) { return _access(path, 0) == 0; }

void ciot_os_temp_dir(char *buf, size_t len) {
    char tmp[MAX_PATH + 1];
    DWORD n = GetTempPathA(sizeof tmp, tmp);
    if (n == 0 || n > MAX_PATH) snprintf(tmp, sizeof tmp, ".");
    else if (n > 1 && (tmp[n - 1] == '\\' || tmp[n - 1] == '/')) tmp[n - 1] = 0;
    snprintf(buf, len, "%s", tmp);
}

/* Windows has no FIFOs or sockets in the file system; a device (CON, NUL, a console) is written with the
 * C runtime. */
int ciot_os_write_through(const char *tmp, ciot_os_kind kind, const char *path, int fd, int fifo_wait_ms,
                          char *stage, size_t stage_len) {
    FILE *in = fopen(tmp, "rb");
    if (!in) return snprintf(stage, stage_len, "cannot read back its temporary file"), 0;
    fflush(NULL);
    FILE *out = fopen(path, "wb");
    if (!out) {
        const int e = errno;
        fclose(in);
        snprintf(stage, stage_len, "cannot open it");
        return errno = e, 0;
    }
    char buf[1 << 16];
    int ok = 1, e = 0;
    for (size_t n; ok && (n = fread(buf, 1, sizeof buf, in)) != 0;)
        if (fwrite(buf, 1, n, out) != n) ok = 0, e = errno ? errno : EIO;
    if (ferror(in) && ok) ok = 0, e = EIO;
    if (fclose(out) != 0 && ok) ok = 0, e = errno;
    fclose(in);
    if (!ok) snprintf(stage, stage_len, "writing failed");
    return ok ? 1 : (errno = e, 0);
}

void ciot_os_std_descriptors(void) {
    for (int fd = 0; fd <= 2; fd++)
        if (_get_osfhandle(fd) == -1 && _open("NUL", _O_RDWR) != fd) return;
}

int ciot_os_list_dir(const char *dir, int (*fn)(const char *name, void *arg), void *arg) {
    char pattern[MAX_PATH * 2];
    snprintf(pattern, sizeof pattern, "%s\\*", dir);
    WIN32_FIND_DATAA d;
    HANDLE h = FindFirstFileA(pattern, &d);
    if (h == INVALID_HANDLE_VALUE) return errno = errno_of(GetLastError()), -1;
    do {
        if (!strcmp(d.cFileName, ".") || !strcmp(d.cFileName, "..")) continue;
        if (fn(d.cFileName, arg)) break;
    } while (FindNextFileA(h, &d));
    FindClose(h);
    return 0;
}

/* ---- shared modules ---- */

static _Thread_local DWORD module_error;

ciot_os_module *ciot_os_module_open(const char *path) {
    wchar_t w[MAX_PATH * 4];
    if (!wide(path, w, MAX_PATH * 4)) return module_error = ERROR_FILENAME_EXCED_RANGE, NULL;
    HMODULE m = LoadLibraryW(w);
    if (!m) module_error = GetLastError();
    return (ciot_os_module *)m;
}

void *ciot_os_module_symbol(ciot_os_module *m, const char *name) {
    FARPROC f = GetProcAddress((HMODULE)m, name);
    if (!f) module_error = GetLastError();
    return (void *)(uintptr_t)f;
}

void ciot_os_module_close(ciot_os_module *m) {
    if (m) FreeLibrary((HMODULE)m);
}

const char *ciot_os_module_error(char *buf, size_t len) {
    if (!module_error) return snprintf(buf, len, "no error"), buf;
    char text[256] = "";
    FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, module_error, 0, text,
                   sizeof text, NULL);
    text[strcspn(text, "\r\n")] = 0;
    snprintf(buf, len, "%s (error %lu)", text[0] ? text : "unknown error", module_error);
    return buf;
}

const char *ciot_os_module_suffix(void) { return ".dll"; }

int ciot_os_executable_path(char *buf, size_t len) {
    wchar_t w[MAX_PATH * 4];
    const DWORD n = GetModuleFileNameW(NULL, w, MAX_PATH * 4);
    if (n == 0 || n >= MAX_PATH * 4) return errno = ENAMETOOLONG, -1;   /* n == size: the name was cut */
    /* the ANSI code page, as the C runtime's narrow calls (and wide() above) read a path */
    if (len > INT_MAX || WideCharToMultiByte(CP_ACP, 0, w, -1, buf, (int)len, NULL, NULL) <= 0)
        return errno = ENAMETOOLONG, -1;
    return 0;
}
