"""Loads and validates a run folder written by `ciot suite` (results/<date>-<host>-<commit>/).

Every problem with an input file becomes one InputError naming the file and what is wrong, so the
scripts can print one line and exit non-zero instead of a traceback. Files are read lazily: a plot
that does not need compute.json does not fail when it is missing.
"""
import json
import math
import os
import re
import statistics

BENCH_COUNTERS = ("Gweights/s", "GB/s", "ceiling_GB/s", "pct_ceiling")
STAT_NAMES = ("min", "median", "max")


class InputError(Exception):
    """A missing, empty or malformed input; str() is the whole message."""


def _fail(path, what):
    raise InputError(f"{path}: {what}")


def read_json(path):
    """Parsed JSON of a file, or InputError saying why it cannot be read."""
    if not os.path.exists(path):
        _fail(path, "missing")
    if os.path.isdir(path):
        _fail(path, "is a folder, not a file")
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        _fail(path, f"cannot be read ({e.strerror})")
    if not raw.strip():
        _fail(path, "empty")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        _fail(path, "not UTF-8 text")
    except json.JSONDecodeError as e:
        _fail(path, f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})")


# --- small typed getters: each names the file and the place inside it ---

def get(obj, key, kind, path, where):
    """obj[key] checked against kind ('str', 'int', 'num', 'bool', 'list', 'dict', 'bool|null')."""
    if not isinstance(obj, dict):
        _fail(path, f"{where or 'the top level'} is not a JSON object")
    if key not in obj:
        _fail(path, f"{where or 'the top level'} has no \"{key}\"")
    return check(obj[key], kind, path, f"{where}, \"{key}\"" if where else f"\"{key}\"")


def check(v, kind, path, where):
    ok = {
        "str": lambda: isinstance(v, str),
        "int": lambda: isinstance(v, int) and not isinstance(v, bool),
        "num": lambda: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
        "bool": lambda: isinstance(v, bool),
        "bool|null": lambda: v is None or isinstance(v, bool),
        "list": lambda: isinstance(v, list),
        "dict": lambda: isinstance(v, dict),
    }[kind]()
    if not ok:
        names = {"num": "a finite number", "int": "an integer", "str": "a string", "bool": "true or false",
                 "bool|null": "true, false or null", "list": "a list", "dict": "an object"}
        _fail(path, f"{where} is {json.dumps(v)[:60]}, expected {names[kind]}")
    return v


def positive(v, path, where):
    if v <= 0:
        _fail(path, f"{where} is {v}, expected a positive number")
    return v


# --- the parts of a run folder ---

class Context:
    """context.json: where and how the run was made."""

    def __init__(self, path):
        d = read_json(path)
        check(d, "dict", path, "the top level")
        self.host = get(d, "host", "str", path, "")
        self.cpu = get(d, "cpu", "str", path, "")
        self.commit = get(d, "commit", "str", path, "")
        self.date = get(d, "date", "str", path, "")
        self.compiler = get(d, "compiler", "str", path, "")
        self.dirty = get(d, "dirty", "bool|null", path, "")
        self.quick = bool(d.get("quick", False))
        self.features = d.get("features", "") if isinstance(d.get("features"), str) else ""
        topo = get(d, "topology", "dict", path, "")
        self.cores = get(topo, "cores", "int", path, "topology")


class ProbeRow:
    def __init__(self, name, threads, stats, note):
        self.name, self.threads, self.stats, self.note = name, threads, stats, note


def _probe(path, probe, name_key, unit):
    """bw.json / compute.json: results[] of {name_key, threads, min_/median_/max_<unit>}."""
    d = read_json(path)
    check(d, "dict", path, "the top level")
    if d.get("probe") != probe:
        _fail(path, f"\"probe\" is {json.dumps(d.get('probe'))}, expected \"{probe}\"")
    results = get(d, "results", "list", path, "")
    if not results:
        _fail(path, "\"results\" is empty")
    rows = []
    for i, r in enumerate(results):
        where = f"results[{i}]"
        stats = {s: get(r, f"{s}_{unit}", "num", path, where) for s in STAT_NAMES}
        note_key = "traffic" if probe == "bw" else "instruction"
        note = r.get(note_key, "") if isinstance(r.get(note_key), str) else ""
        rows.append(ProbeRow(get(r, name_key, "str", path, where), get(r, "threads", "int", path, where), stats, note))
    return rows


class BenchCase:
    """One benchmark of bench.json: its repetitions' counters and Google Benchmark's aggregates."""

    def __init__(self, run_name, kernel, rows, K, batch, threads, pool):
        self.run_name, self.kernel, self.rows, self.K = run_name, kernel, rows, K
        self.batch, self.threads, self.pool = batch, threads, pool
        self.op = "gemm" if "_gemm_" in kernel else "gemv"
        self.layout = kernel.split(f"_{self.op}_")[0]
        self.reps = []          # one dict of counters per repetition
        self.aggregates = {}    # aggregate_name -> dict of counters
        self.label = ""

    @property
    def shape(self):
        return f"{self.rows}x{self.K}"

    def stats(self, counter):
        """min / median / max of a counter over the repetitions (Google Benchmark's aggregates when the
        file holds only those)."""
        vals = [r[counter] for r in self.reps if counter in r]
        if vals:
            return {"min": min(vals), "median": statistics.median(vals), "max": max(vals)}
        med = self.aggregates.get("median", {}).get(counter)
        if med is None:
            return None
        return {"min": self.aggregates.get("min", {}).get(counter, med), "median": med,
                "max": self.aggregates.get("max", {}).get(counter, med)}

    def median(self, counter):
        s = self.stats(counter)
        return s["median"] if s else None


NAME_RE = re.compile(r"^(?P<kernel>[a-z0-9_]+_(gemv|gemm)_[a-z0-9_]+)/(?P<rows>\d+)x(?P<K>\d+)(?P<rest>(/[^/]+)*)$")


def parse_bench_name(name):
    """'t2p_gemm_avx2/17408x5120/batch:4/threads:1/persistent/manual_time' -> fields, or None."""
    m = NAME_RE.match(name)
    if not m:
        return None
    f = {"kernel": m["kernel"], "rows": int(m["rows"]), "K": int(m["K"]), "batch": 1, "threads": None, "pool": None}
    for tok in m["rest"].split("/")[1:]:
        key, _, val = tok.partition(":")
        if key in ("batch", "threads") and val.isdigit() and int(val) > 0:
            f[key] = int(val)
        elif tok in ("persistent", "spawn"):
            f["pool"] = tok
        elif tok in ("manual_time", "real_time"):
            pass
        else:
            return None
    return f if f["threads"] and f["pool"] else None


class Bench:
    """bench.json (Google Benchmark JSON from `ciot bench`)."""

    def __init__(self, path):
        d = read_json(path)
        check(d, "dict", path, "the top level")
        self.context = get(d, "context", "dict", path, "")
        entries = get(d, "benchmarks", "list", path, "")
        self.errors = []   # (name, message) of benchmarks that reported an error
        by_name = {}
        for i, e in enumerate(entries):
            where = f"benchmarks[{i}]"
            name = get(e, "run_name", "str", path, where) if "run_name" in e else get(e, "name", "str", path, where)
            where = f"benchmark \"{name}\""
            if e.get("error_occurred"):
                self.errors.append((name, str(e.get("error_message", ""))))
                continue
            if name.startswith("pool_empty_job/"):
                continue   # the pools' own cost per empty job, not a kernel
            f = parse_bench_name(name)
            if f is None:
                _fail(path, f"{where}: cannot read the name (expected KERNEL/RxK[/batch:B]/threads:T/persistent|spawn)")
            run_type = get(e, "run_type", "str", path, where)
            if run_type == "aggregate":
                agg = get(e, "aggregate_name", "str", path, where)
                # cv (and other percentages) and stddev are not values of the counters themselves
                if agg not in STAT_NAMES and agg != "mean":
                    continue
            elif run_type != "iteration":
                _fail(path, f"{where}: run_type is \"{run_type}\", expected \"iteration\" or \"aggregate\"")
            c = by_name.get(name)
            if c is None:
                c = by_name[name] = BenchCase(name, **f)
            wanted = BENCH_COUNTERS + (("GMAC/s",) if c.op == "gemm" else ())
            counters = {k: get(e, k, "num", path, where) for k in wanted}
            for k in ("Gweights/s", "GB/s"):
                positive(counters[k], path, f"{where}, \"{k}\"")
            c.label = e.get("label", "") if isinstance(e.get("label"), str) else ""
            if run_type == "iteration":
                c.reps.append(counters)
            else:
                c.aggregates[agg] = counters
        self.cases = [c for c in by_name.values() if c.reps or "median" in c.aggregates]
        if not self.cases:
            detail = f" ({len(self.errors)} reported errors, e.g. {self.errors[0][1]})" if self.errors else ""
            _fail(path, f"no benchmark results{detail}")


class Run:
    """A run folder; each file is read and validated on first use."""

    def __init__(self, path):
        self.path = os.path.normpath(path)
        if not os.path.isdir(self.path):
            raise InputError(f"{path}: not a run folder (no such folder)")
        self.name = os.path.basename(self.path)
        self._cache = {}

    def file(self, name):
        return os.path.join(self.path, name)

    def _load(self, key, make):
        if key not in self._cache:
            self._cache[key] = make(self.file(key))
        return self._cache[key]

    @property
    def context(self):
        return self._load("context.json", Context)

    @property
    def bw(self):
        return self._load("bw.json", lambda p: _probe(p, "bw", "kernel", "gbs"))

    @property
    def compute(self):
        return self._load("compute.json", lambda p: _probe(p, "compute", "family", "gops"))

    @property
    def bench(self):
        return self._load("bench.json", Bench)

    @property
    def replay(self):
        from replay import Replay   # only the profile needs it
        return self._load("replay.json", Replay)

    def has(self, name):
        return os.path.exists(self.file(name))

    # --- derived figures the plots share ---

    def read_ceiling(self, threads):
        """The probe's read median GB/s at this thread count (bw.json), or None."""
        rows = [r for r in self.bw if r.name == "read" and r.threads == threads]
        return rows[0].stats["median"] if rows else None

    def compute_roof(self, threads):
        """(family, instruction, median GOPS) of the fastest compute family at this thread count, or None."""
        rows = [r for r in self.compute if r.threads == threads]
        if not rows:
            return None
        best = max(rows, key=lambda r: r.stats["median"])
        return best.name, best.note, best.stats["median"]

    def stock_for(self, case):
        """The stock kernel the speed-ups are over: the fastest pq2_0 gemv at the same threads and pool
        (as `ciot suite`'s summary chooses it)."""
        stock = [c for c in self.bench.cases if c.kernel.startswith("pq2_0_gemv") and c.threads == case.threads
                 and c.pool == case.pool]
        return max(stock, key=lambda c: c.median("Gweights/s"), default=None)

    def title(self, what):
        c = self.context
        flags = [f for f, on in (("dirty", c.dirty), ("quick run", c.quick)) if on]
        return f"{what}: {c.host} ({c.cpu}), {c.date}, commit {c.commit}" + (f" [{', '.join(flags)}]" if flags else "")
