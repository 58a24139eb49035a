#!/usr/bin/python3
"""The bad-input matrix: every row of tests/bad_inputs.tsv is one command a user could type, run in a
scratch folder of its own (also its TMPDIR) with a time limit, and must give the row's exit code, no crash
(no death by a signal, no core file), no sanitizer report, no *.tmp.* file left in the folder, and on
stderr exactly one line matching the row's pattern (for an exit-0 row: some line matches, or stderr is
empty when the pattern is "-"). The table's header says how rows, flags and setup steps are written.

A row marked known=REASON is a failure someone else is fixing: reported as KNOWN with the reason, counted
as skipped, never as passed; when it passes it is reported as a failure so the mark gets removed.

With --windows (ciot.exe under Wine) the rows that cannot apply to Windows are skipped with their reason:
FIFOs, symbolic links, Linux device and /proc paths, a closed descriptor, a control character in a file
name, the Linux-only test peer module.

usage: bad_inputs.py --ciot PATH [--emulator "qemu-aarch64 -cpu max"] [--arch x86_64|aarch64] [--windows]
                     [--part ciot|render] [--table FILE] [--only REGEX] [--keep] [-v]
Ends with "N passed, M failed, K skipped" and exits 1 when a row failed; exits 2 at once, with one line, when
--ciot is not an executable file."""
import argparse
import copy
import functools
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SANITIZER = re.compile(r"runtime error|Sanitizer|AddressSanitizer|LeakSanitizer")
TMP_LEFT = re.compile(r"\.tmp\.")
DEFAULT_LIMIT = 30.0
FLAGS = ("native", "arch", "cpu", "time", "env", "stdout", "unchanged", "absent", "grep", "size", "redirect", "last",
         "known")
# bytes per block and where the fp16 scale sits, per source format (kernels/formats.md, kernels/README-tq.md)
FORMATS = {"pq2_0": (128, 34, 0), "ptq1_0": (128, 28, 26), "tq1_0": (256, 54, 52), "tq2_0": (256, 66, 64)}
FP16 = {"nan": 0x7E00, "inf": 0x7C00, "-inf": 0xFC00}
FLOAT = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}


class TableError(Exception):
    pass


class Row:
    def __init__(self, line_no, fields):
        if len(fields) != 6:
            raise TableError(f"line {line_no}: {len(fields)} columns, expected 6 "
                             "(name exit stderr flags setup command)")
        self.line = line_no
        self.name, code, self.pattern, flags, setup, self.command = fields
        if not re.fullmatch(r"[0-2]", code):
            raise TableError(f"line {line_no}: exit code '{code}' is not 0, 1 or 2")
        self.exit = int(code)
        if self.pattern != "-":
            try:
                re.compile(self.pattern)
            except re.error as e:
                raise TableError(f"line {line_no}: bad pattern: {e}")
        self.flags = {}
        for item in [] if flags == "-" else [f.strip() for f in flags.split(";") if f.strip()]:
            key, _, value = item.partition("=")
            if key not in FLAGS:
                raise TableError(f"line {line_no}: unknown flag '{key}'")
            self.flags.setdefault(key, []).append(value)
        self.setup = [] if setup == "-" else [shlex.split(s) for s in setup.split(";") if s.strip()]
        if self.command == "-":
            self.command = ""
        self.render = self.command.split()[:1] == ["render"]
        if self.exit != 0 and self.pattern == "-":
            raise TableError(f"line {line_no}: a failing row needs a stderr pattern")

    def flag(self, key, default=None):
        return self.flags.get(key, [default])[-1]


def read_table(path):
    rows, names = [], set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            row = Row(n, re.split(r"\t+", line))
            if row.name in names:
                raise TableError(f"line {n}: row name '{row.name}' used twice")
            names.add(row.name)
            rows.append(row)
    return rows


# ---- setup steps, run in the row's scratch folder ----

def fp16_scale_file(path, fmt, rows, K, bad_block=None, bad="nan"):
    if fmt not in FORMATS:
        raise TableError(f"weights: unknown format {fmt}")
    per, size, at = FORMATS[fmt]
    blocks = rows * (K // per)
    data = bytearray(blocks * size)
    for b in range(blocks):   # scale 1.0, every code 0: finite everywhere
        struct.pack_into("<H", data, b * size + at, 0x3C00)
    if bad_block is not None:
        struct.pack_into("<H", data, bad_block * size + at, FP16[bad])
    with open(path, "wb") as f:
        f.write(data)


def set_json(path, keys, value):
    with open(path) as f:
        doc = json.load(f)
    node = doc
    parts = keys.split(".")
    for k in parts[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    last = parts[-1]
    node[int(last) if isinstance(node, list) else last] = json.loads(value)
    with open(path, "w") as f:
        json.dump(doc, f)


@functools.cache
def test_model():
    """(make_gguf, metadata, tensors) of make_gguf.py's model, made once: making it draws millions of random
    codes, which took most of this runner's time when every gguf row made its own."""
    sys.path.insert(0, os.path.join(HERE, "gguf"))
    import make_gguf
    return (make_gguf,) + tuple(make_gguf.model(1))


def run_setup(step, d, subst):
    op, args = step[0], [subst(a) for a in step[1:]]
    p = lambda name: os.path.join(d, name)  # noqa: E731
    if op == "weights":       # weights FILE FORMAT ROWS K [BLOCK nan|inf|-inf]
        fp16_scale_file(p(args[0]), args[1], int(args[2]), int(args[3]),
                        int(args[4]) if len(args) > 4 else None, args[5] if len(args) > 5 else "nan")
    elif op == "floats":      # floats FILE N [INDEX nan|inf|-inf]
        vals = [0.25] * int(args[1])
        if len(args) > 2:
            vals[int(args[2])] = FLOAT[args[3]]
        with open(p(args[0]), "wb") as f:
            f.write(struct.pack(f"<{len(vals)}f", *vals))
    elif op == "bytes":       # bytes FILE N
        with open(p(args[0]), "wb") as f:
            f.write(bytes(int(args[1])))
    elif op == "sparse":      # sparse FILE N: a file of N bytes that takes no room
        with open(p(args[0]), "wb") as f:
            f.truncate(int(args[1]))
    elif op == "text":        # text FILE STRING (\n and \t written as such)
        with open(p(args[0]), "w") as f:
            f.write(args[1].replace("\\n", "\n").replace("\\t", "\t"))
    elif op == "fifo":
        os.mkfifo(p(args[0]))
    elif op == "dir":
        os.makedirs(p(args[0]), exist_ok=True)
    elif op == "link":        # link NAME TARGET
        os.symlink(args[1], p(args[0]))
    elif op == "hardlink":    # hardlink NAME TARGET: one file, two names
        os.link(p(args[1]), p(args[0]))
    elif op == "gguf":        # gguf FILE [TENSOR BLOCK nan|inf|-inf]: make_gguf.py's model, one block scale bad
        make_gguf, meta, tensors = test_model()
        if len(args) > 1:
            i = next(i for i, t in enumerate(tensors) if t.name == args[1])
            t = copy.copy(tensors[i])   # the shared model stays as made
            per, size, at = FORMATS[make_gguf.TYPE_NAME[t.type]]
            data = bytearray(t.data)
            struct.pack_into("<H", data, int(args[2]) * size + at, FP16[args[3]])
            t.data = bytes(data)
            tensors = tensors[:i] + [t] + tensors[i + 1:]
        make_gguf.write(p(args[0]), meta, tensors)
    elif op == "run":         # run DIR: a synthetic run folder (plots/testdata/make_run.py)
        sys.path.insert(0, os.path.join(ROOT, "plots", "testdata"))
        import make_run
        make_run.make(p(args[0]))
    elif op == "jset":        # jset FILE KEY.PATH JSON-VALUE
        set_json(p(args[0]), args[1], args[2])
    elif op == "rm":
        os.remove(p(args[0]))
    else:
        raise TableError(f"unknown setup step '{op}'")


# ---- what the row must leave as it was ----

def snapshot(path):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return ("link", os.readlink(path))
    if stat.S_ISREG(st.st_mode):
        with open(path, "rb") as f:
            return ("file", hashlib.sha256(f.read()).hexdigest(), stat.S_IMODE(st.st_mode))
    return (stat.S_IFMT(st.st_mode), st.st_rdev)


def leftovers(d):
    found = []
    for top, dirs, files in os.walk(d):
        for n in files + dirs:
            if TMP_LEFT.search(n) or n == "core" or n.startswith("core."):
                found.append(os.path.relpath(os.path.join(top, n), d))
    return found


# ---- one row ----

def windows_skip(row):
    """Why a row cannot apply to Windows (ciot.exe under Wine), or None."""
    steps = {step[0] for step in row.setup}
    words = " ".join([row.command] + [v for vals in row.flags.values() for v in vals])
    if "{peer}" in row.command:
        return "the test peer module (peers/fake_peer.c) is Linux-only: not built for Windows"
    if "fifo" in steps:
        return "a FIFO: Windows file systems have none"
    if "link" in steps:
        return "a symbolic link: made with a Linux call, which Wine shows a Windows program as its target"
    if re.search(r"(^|[\s=])/(dev|proc)/", words):
        return "a Linux device or /proc path: Windows has none"
    if row.flag("redirect") == "closed":
        return "a closed standard descriptor: the C runtime reopens none on Windows"
    if any("{nl}" in w for step in row.setup for w in step):
        return "a file whose name holds a newline: Windows file names cannot hold one"
    return None


class Runner:
    def __init__(self, args):
        ciot = os.path.abspath(args.ciot)
        self.ciot = shlex.split(args.emulator) + [ciot] if args.emulator else [ciot]
        self.emulated = bool(args.emulator)
        self.windows = args.windows
        self.arch = args.arch
        self.part = args.part
        self.work = tempfile.mkdtemp(prefix="ciot-bad-inputs-")
        self.gguf = None
        self.features = {}   # CIOT_CPU value -> the features ciot info reports under it

    def gguf_dir(self):
        if self.gguf is None:
            self.gguf = os.path.join(self.work, "gguf")
            subprocess.run([sys.executable, os.path.join(HERE, "gguf", "make_gguf.py"), "--out", self.gguf],
                           check=True, stdout=subprocess.DEVNULL)
        return self.gguf

    def skip_reason(self, row):
        if "native" in row.flags and self.emulated:
            return "needs gigabytes or this machine's CPU: not under the emulator"
        if self.windows and windows_skip(row):
            return windows_skip(row)
        want = row.flag("arch")
        if want and want != self.arch:
            return f"{want} only"
        need = row.flag("cpu")
        if need:
            has = self.cpu_features(self.row_env(row).get("CIOT_CPU"))
            if not any(set(alt.split(",")) <= has for alt in need.split("|")):
                return f"needs {need}; this CPU, as masked, has {','.join(sorted(has)) or 'none'}"
        return None

    def row_env(self, row, **extra):
        """The row's environment: the run's, its own variables, a CIOT_CPU of its own intersected with the
        run's (kernels/cpu.h): a row never gains a feature the run hid."""
        env = dict(os.environ, **extra)
        env.setdefault("CIOT_TUNING", "none")   # never the user's tuning file (ciot tune): rows set their own
        for e in row.flags.get("env", []):
            k, _, v = e.partition("=")
            v = v.replace("{src}", ROOT)
            env[k] = f"{env[k]}:{v}" if k == "CIOT_CPU" and env.get(k) else v
        return env

    def cpu_features(self, mask):
        """The features `ciot info` reports under CIOT_CPU=mask (None: unmasked)."""
        if mask not in self.features:
            env = dict(os.environ)
            env.pop("CIOT_CPU", None)
            if mask is not None:
                env["CIOT_CPU"] = mask
            p = subprocess.run(self.ciot + ["info"], capture_output=True, text=True, env=env)
            m = re.search(r"^features\s+(\S+)", p.stdout, re.M)
            self.features[mask] = set() if not m or m[1] == "none" else set(m[1].split(","))
        return self.features[mask]

    def subst(self, s, d):
        """The placeholders of a command or setup word filled in for scratch folder d."""
        if "{gguf}" in s:
            s = s.replace("{gguf}", self.gguf_dir())
        over = str((os.cpu_count() or 1) + 1)
        peer = os.path.join(os.path.dirname(os.path.abspath(self.ciot[-1])), "peers", "fake", "ciot-peer.so")
        return s.replace("{peer}", peer).replace("{src}", ROOT).replace("{dir}", d).replace("{over}", over).replace("{nl}", "\n")

    def run(self, i, row):
        """(ok, detail) of one row."""
        d = os.path.join(self.work, f"{i:03d}-{re.sub(r'[^A-Za-z0-9_.-]', '_', row.name)}")
        os.makedirs(d)
        for step in row.setup:
            run_setup(step, d, lambda w: self.subst(w, d))
        argv = [self.subst(a, d) for a in shlex.split(row.command)]
        cmd = [os.path.join(ROOT, "plots", "render")] + argv[1:] if row.render else self.ciot + argv
        env = self.row_env(row, TMPDIR=d)
        watched = {p: snapshot(os.path.join(d, p)) for p in (self.subst(u, d) for u in row.flags.get("unchanged", []))}
        limit = float(row.flag("time", DEFAULT_LIMIT))
        redirect = row.flag("redirect")
        sink = open(redirect, "wb") if redirect and redirect != "closed" else None
        start = time.monotonic()
        try:
            proc = subprocess.Popen(cmd, cwd=d, env=env, stdin=subprocess.DEVNULL, stdout=sink or subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True,
                                    preexec_fn=(lambda: os.close(1)) if redirect == "closed" else None)
        finally:
            if sink:
                sink.close()
        try:
            out, err = proc.communicate(timeout=limit)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            return False, f"no exit within {limit:g} s (killed); stderr {tail(err)}"
        took = time.monotonic() - start
        out, err = (out or b"").decode(errors="replace"), err.decode(errors="replace")
        problems = judge(row, proc.returncode, out, err) + aftermath(row, d, watched)
        return not problems, "; ".join(problems) + f"; stderr {tail(err)}" if problems else f"{took:.2f} s"


def judge(row, code, out, err):
    """What is wrong with the exit code, stderr and stdout of a row's run."""
    lines = [l for l in err.splitlines() if l.strip()]
    problems = []
    if code < 0:
        problems.append(f"killed by signal {-code} ({signal.Signals(-code).name})")
    elif code != row.exit:
        problems.append(f"exit {code}, expected {row.exit}")
    if SANITIZER.search(err):
        problems.append("a sanitizer report")
    if row.exit != 0 and "last" in row.flags:
        if not lines or not re.search(row.pattern, lines[-1]):
            problems.append(f"the last stderr line does not match /{row.pattern}/")
    elif row.exit != 0:
        if len(lines) != 1:
            problems.append(f"{len(lines)} lines on stderr, expected 1")
        elif not re.search(row.pattern, lines[0]):
            problems.append(f"stderr does not match /{row.pattern}/")
    elif row.pattern == "-":
        if lines:
            problems.append(f"{len(lines)} lines on stderr, expected none")
    elif not any(re.search(row.pattern, l) for l in lines):
        problems.append(f"no stderr line matches /{row.pattern}/")
    for pat in row.flags.get("stdout", []):
        if not re.search(pat, out, re.M):
            problems.append(f"stdout does not match /{pat}/ ({tail(out)})")
    return problems


def aftermath(row, d, watched):
    """What is wrong with the scratch folder d after a row's run."""
    problems = []
    for p, before in watched.items():
        after = snapshot(os.path.join(d, p))
        if after != before:
            problems.append(f"{p} was changed: {before} -> {after}")
    for p in row.flags.get("absent", []):
        if os.path.lexists(os.path.join(d, p)):
            problems.append(f"{p} exists")
    for g in row.flags.get("grep", []):
        p, _, pat = g.partition("~")
        try:
            with open(os.path.join(d, p), errors="replace") as f:
                if not re.search(pat, f.read(), re.M):
                    problems.append(f"{p} does not match /{pat}/")
        except OSError as e:
            problems.append(f"{p}: {e.strerror}")
    for z in row.flags.get("size", []):
        p, _, n = z.partition(":")
        got = os.path.getsize(os.path.join(d, p)) if os.path.isfile(os.path.join(d, p)) else None
        if got != int(n):
            problems.append(f"{p} holds {got} bytes, expected {n}")
    left = leftovers(d)
    if left:
        problems.append(f"left behind: {' '.join(left)}")
    return problems


def tail(text, n=300):
    text = (text.decode(errors="replace") if isinstance(text, bytes) else text or "").strip()
    return repr(text if len(text) <= n else "..." + text[-n:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ciot", required=True)
    ap.add_argument("--emulator", default="")
    ap.add_argument("--arch", default=os.uname().machine)
    ap.add_argument("--windows", action="store_true", help="ciot is a Windows program (under Wine): skip the rows "
                    "that cannot apply to Windows, each with its reason")
    ap.add_argument("--part", choices=("ciot", "render"), default="ciot",
                    help="the rows that run ciot (default) or those that run plots/render; the other part's rows "
                         "are not this run's and are not counted")
    ap.add_argument("--table", default=os.path.join(HERE, "bad_inputs.tsv"))
    ap.add_argument("--only", help="the rows whose name matches this regex")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folders")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per row, passed ones too")
    args = ap.parse_args(argv)
    if not (os.path.isfile(args.ciot) and os.access(args.ciot, os.X_OK)):
        why = "is not an executable file" if os.path.exists(args.ciot) else "does not exist"
        print(f"bad_inputs: --ciot {args.ciot} {why} (build it first)", file=sys.stderr)
        return 2
    try:
        rows = read_table(args.table)
    except (OSError, TableError) as e:
        print(f"bad_inputs: {args.table}: {e}")
        print("0 passed, 1 failed, 0 skipped")
        return 1
    runner = Runner(args)
    passed = failed = skipped = 0
    known = []
    try:
        for i, row in enumerate(rows):
            if row.render != (args.part == "render") or args.only and not re.search(args.only, row.name):
                continue
            why = runner.skip_reason(row)
            if why:
                skipped += 1
                if args.verbose:
                    print(f"SKIP  {row.name}: {why}")
                continue
            try:
                ok, detail = runner.run(i, row)
            except (OSError, TableError, subprocess.SubprocessError, ValueError, KeyError, IndexError) as e:
                failed += 1   # the row could not be tried: a defect of the table or the machine, never "known"
                print(f"FAIL  {row.name} (line {row.line}): setup failed: {type(e).__name__}: {e}")
                continue
            reason = row.flag("known")
            if reason is not None:
                if ok:
                    failed += 1
                    print(f"FAIL  {row.name} (line {row.line}): marked known ({reason}) but passes now: "
                          "remove the mark")
                else:
                    skipped += 1
                    known.append(row.name)
                    print(f"KNOWN {row.name} (line {row.line}): {reason}; {detail}")
            elif ok:
                passed += 1
                if args.verbose:
                    print(f"ok    {row.name}: {detail}")
            else:
                failed += 1
                print(f"FAIL  {row.name} (line {row.line}): ciot {row.command}: {detail}")
    finally:
        if args.keep:
            print(f"scratch folders kept in {runner.work}")
        else:
            shutil.rmtree(runner.work, ignore_errors=True)
    if known:
        print(f"{len(known)} known failures (expected, counted as skipped, not passed): {', '.join(known)}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
