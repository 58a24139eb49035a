#!/usr/bin/python3
"""Every script in scripts/ answers --help the same way: exit 0, its usage line first ("usage: scripts/NAME"),
in under a second of CPU time, having run nothing. The tools a script would start (package managers, cmake,
ctest, ninja, git, compilers, valgrind, qemu) are shims earlier on PATH that leave a mark when called: a
script that starts its work before reading --help leaves one. New scripts are found by listing the folder."""
import os, resource, stat, subprocess, sys, tempfile

from script_checks import SCRIPTS, Checks

TOOLS = ("apt-get", "dpkg", "dpkg-query", "sudo", "cmake", "ctest", "ninja", "git", "clang", "clang++",
         "valgrind", "qemu-aarch64", "llvm-mca", "objdump")


def shims(folder, mark):
    for tool in TOOLS:
        path = os.path.join(folder, tool)
        with open(path, "w") as f:
            f.write(f'#!/bin/sh\necho "{tool} $*" >> "{mark}"\nexit 1\n')
        os.chmod(path, 0o755)


def run_help(path, env):
    """(exit code, stdout, CPU seconds of the child and what it started)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([path, "--help"], stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                       timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.returncode, p.stdout, cpu


def main():
    check = Checks()
    scripts = sorted(n for n in os.listdir(SCRIPTS)
                     if os.path.isfile(os.path.join(SCRIPTS, n)) and os.stat(os.path.join(SCRIPTS, n)).st_mode & stat.S_IXUSR)
    check(len(scripts) >= 8, f"scripts/ holds {len(scripts)} scripts")
    with tempfile.TemporaryDirectory() as tmp:
        folder, mark = os.path.join(tmp, "bin"), os.path.join(tmp, "called")
        os.mkdir(folder)
        shims(folder, mark)
        env = dict(os.environ, PATH=folder + os.pathsep + os.environ.get("PATH", ""))
        for name in scripts:
            rc, out, cpu = run_help(os.path.join(SCRIPTS, name), env)
            first = out.splitlines()[0] if out else ""
            called = open(mark).read().strip() if os.path.exists(mark) else ""
            if called:
                os.remove(mark)
            check(rc == 0, f"scripts/{name} --help exits 0 (got {rc})")
            check(first.startswith(f"usage: scripts/{name}"), f"scripts/{name} --help starts with its usage line: {first!r}")
            check(not called, f"scripts/{name} --help starts nothing{': called ' + called if called else ''}")
            check(cpu < 1.0, f"scripts/{name} --help takes under a second of CPU ({cpu:.2f} s)")
    check.finish()


if __name__ == "__main__":
    main()
