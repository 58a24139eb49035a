"""No file of ciot outside the OS seam (os/: os.h, os_posix.c, os_windows.c) includes an operating system's
header, so a port is one more file in os/. Caught: #include of unistd.h, pthread.h, sched.h, signal.h,
fcntl.h, dirent.h, dlfcn.h, poll.h, termios.h, any sys/..., linux/..., asm/..., mach/..., netinet/...,
arpa/..., windows.h and the Win32 headers beside it (winbase.h, winnt.h, io.h, direct.h, process.h, ...).
Allowed: the C standard's headers (stdio.h, time.h, errno.h, limits.h, stdatomic.h, ...), the compiler's
(cpuid.h, immintrin.h, arm_neon.h, arm_sve.h), strings.h (strcasecmp: mingw-w64 has it too) and the libraries' (hwloc.h, benchmark/benchmark.h).
Scanned: every .c, .h, .cc and .def file of the program (kernels/, pools/, harness/, profiles/, peers/ and
any other folder) except os/ itself and tests/, whose Linux test programs exercise POSIX behaviour (FIFOs,
fork, signals, sockets) directly and are not built for Windows.
Prints one line per self-test and per file scanned, then "N passed, M failed" (scripts/count-tests)."""
import os, re, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_checks import Checks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_DIRS = {".git", "build", "results", "tests", "os", "__pycache__"}
SUFFIXES = (".c", ".h", ".cc", ".cpp", ".def")
OS_HEADER = re.compile(
    r"^\s*#\s*include\s*[<\"]("
    r"(?:sys|linux|asm|asm-generic|mach|netinet|arpa|net|bits)/[^>\"]+"
    r"|(?:unistd|pthread|sched|signal|fcntl|dirent|dlfcn|poll|termios|spawn|pwd|grp|libgen|syslog|ucontext"
    r"|semaphore|execinfo|regex|glob|fnmatch|wordexp|malloc|alloca|sysexits|err|link|elf|libproc)\.h"
    r"|(?:windows|winbase|winnt|windef|winternl|winsock2?|ws2tcpip|io|direct|process|processthreadsapi"
    r"|sysinfoapi|memoryapi|synchapi|fileapi|handleapi|libloaderapi|intrin|conio|shlwapi|psapi|tlhelp32)\.h"
    r")[>\"]", re.MULTILINE)


def os_includes(text):
    return [m.group(1) for m in OS_HEADER.finditer(text)]


def self_test(check):
    caught = ["#include <unistd.h>", "#include <sys/stat.h>", "# include <pthread.h>", "#include <windows.h>",
              "  #include <signal.h>", "#include <dlfcn.h>", "#include <io.h>", "#include <sys/auxv.h>"]
    allowed = ["#include <stdio.h>", "#include <time.h>", "#include \"os.h\"", "#include <cpuid.h>",
               "#include <immintrin.h>", "#include <strings.h>", "#include <hwloc.h>", "#include <benchmark/benchmark.h>",
               "// #include <unistd.h> would be wrong here", "#include <stdatomic.h>", "#include <errno.h>"]
    for line in caught:
        check(os_includes(line) != [], f"self-test: {line.strip()} is caught")
    for line in allowed:
        check(os_includes(line) == [], f"self-test: {line.strip()} is allowed")


def program_files(root):
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = sorted(x for x in dirs if not (rel == "." and x in SKIP_DIRS) and x not in {".git", "build"})
        for name in sorted(files):
            if name.endswith(SUFFIXES):
                yield os.path.join(d, name)


def main():
    check = Checks()
    self_test(check)
    for path in program_files(ROOT):
        with open(path, encoding="utf-8", errors="replace") as f:
            found = os_includes(f.read())
        rel = os.path.relpath(path, ROOT)
        check(not found, f"{rel}: no OS header" if not found else f"{rel} includes {', '.join(found)}: "
              "call the OS through os/os.h")
    seam = os.path.join(ROOT, "os", "os_posix.c")
    with open(seam, encoding="utf-8") as f:
        check(os_includes(f.read()) != [], "positive control: os/os_posix.c's own OS headers are caught")
    check.finish()


if __name__ == "__main__":
    main()
