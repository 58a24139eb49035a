"""Loads and validates a run folder written by `ciot suite` (results/<date>-<host>-<commit>/).

Every problem with an input file becomes one InputError naming the file and what is wrong (the key
too, for a bad value), so the scripts can print one line and exit non-zero instead of a traceback.
Values the plots divide by or draw on log axes are checked here: rates are positive, min <= median <=
max, counts and lists have sane bounds, so a plot never divides by zero, never loops on a nonsense
value and never works for minutes on an absurd file. Files are read lazily: a plot that does not need
compute.json does not fail when it is missing.
"""
import json
import math
import os
import re
import statistics

BENCH_COUNTERS = ("Gweights/s", "GB/s", "ceiling_GB/s", "pct_ceiling")
STAT_NAMES = ("min", "median", "max")
MAX_FILE_BYTES = 256 << 20     # ciot writes a few MiB at most
MAX_ITEMS = 100_000            # results, benchmark entries, ops: far above any real run
MAX_RATE = 1e12                # GB/s, GOPS, Gweights/s, tokens/s: anything above is not a measurement
MAX_THREADS = 1 << 16
MAX_TEXT = 1000                # names and labels
MAX_CASES = 4096               # benchmark cases of one bench.json (a suite has about 64)


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
    if not os.path.isfile(path):
        _fail(path, "is not a regular file")
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        _fail(path, f"is {size >> 20} MiB, more than any run writes ({MAX_FILE_BYTES >> 20} MiB at most)")
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
    except RecursionError:
        _fail(path, "nested too deep to be a file ciot wrote")
    except ValueError as e:   # e.g. an integer of thousands of digits
        _fail(path, f"not valid JSON ({str(e)[:80]})")


# --- small typed getters: each names the file and the place inside it ---

def _place(where, key):
    return f"{where}, \"{key}\"" if where else f"\"{key}\""


def get(obj, key, kind, path, where):
    """obj[key] checked against kind ('str', 'int', 'num', 'bool', 'list', 'dict', 'bool|null')."""
    if not isinstance(obj, dict):
        _fail(path, f"{where or 'the top level'} is not a JSON object")
    if key not in obj:
        _fail(path, f"{where or 'the top level'} has no \"{key}\"")
    return check(obj[key], kind, path, _place(where, key))


def check(v, kind, path, where):
    ok = {
        "str": lambda: isinstance(v, str) and len(v) <= MAX_TEXT,
        "int": lambda: isinstance(v, int) and not isinstance(v, bool),
        "num": lambda: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
        "bool": lambda: isinstance(v, bool),
        "bool|null": lambda: v is None or isinstance(v, bool),
        "list": lambda: isinstance(v, list) and len(v) <= MAX_ITEMS,
        "dict": lambda: isinstance(v, dict),
    }[kind]()
    if not ok:
        names = {"num": "a finite number", "int": "an integer", "str": f"a string of at most {MAX_TEXT} characters",
                 "bool": "true or false", "bool|null": "true, false or null",
                 "list": f"a list of at most {MAX_ITEMS} items", "dict": "an object"}
        _fail(path, f"{where} is {_show(v)}, expected {names[kind]}")
    return v


def _show(v):
    """A value as it reads in the file, cut short."""
    if isinstance(v, (list, dict)) and len(v) > 8:
        return f"a {'list' if isinstance(v, list) else 'object'} of {len(v)} items"
    try:
        text = json.dumps(v)
    except (ValueError, RecursionError):
        text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def positive(v, path, where):
    if v <= 0:
        _fail(path, f"{where} is {v}, expected a positive number")
    return v


def in_range(v, lo, hi, path, where, lo_open=False):
    """v within [lo, hi] (or (lo, hi] with lo_open)."""
    if v < lo or v > hi or (lo_open and v == lo):
        _fail(path, f"{where} is {_show(v)}, expected a number {'above' if lo_open else 'from'} {lo:g} "
                    f"{'and at most' if lo_open else 'to'} {hi:g}")
    return v


def rate(obj, key, path, where):
    """A measured rate (GB/s, GOPS, Gweights/s, tokens/s): finite and in (0, MAX_RATE]."""
    return in_range(get(obj, key, "num", path, where), 0, MAX_RATE, path, _place(where, key), lo_open=True)


def count(obj, key, path, where, lo=1, hi=MAX_THREADS):
    """A count (threads, batch, tokens): an integer in [lo, hi]."""
    return in_range(get(obj, key, "int", path, where), lo, hi, path, _place(where, key))


def stats(obj, keys, path, where):
    """min / median / max rates under the given keys, ordered."""
    v = {s: rate(obj, k, path, where) for s, k in zip(STAT_NAMES, keys)}
    if not v["min"] <= v["median"] <= v["max"]:
        _fail(path, f"{where or 'the top level'}: {keys[0]} {v['min']:g}, {keys[1]} {v['median']:g}, "
                    f"{keys[2]} {v['max']:g} are not in order min <= median <= max")
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
        self.cores = count(topo, "cores", path, "topology")


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
        st = stats(r, [f"{s}_{unit}" for s in STAT_NAMES], path, where)
        note_key = "traffic" if probe == "bw" else "instruction"
        note = r.get(note_key, "") if isinstance(r.get(note_key), str) else ""
        rows.append(ProbeRow(get(r, name_key, "str", path, where), count(r, "threads", path, where), st, note))
    return rows


class BenchCase:
    """One benchmark of bench.json: its repetitions' counters and Google Benchmark's aggregates."""

    def __init__(self, path, run_name, kernel, rows, K, batch, threads, pool):
        self.path, self.run_name, self.kernel, self.rows, self.K = path, run_name, kernel, rows, K
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
        st = {"min": self.aggregates.get("min", {}).get(counter, med), "median": med,
              "max": self.aggregates.get("max", {}).get(counter, med)}
        if not st["min"] <= st["median"] <= st["max"]:
            _fail(self.path, f"benchmark \"{self.run_name}\": the aggregates of \"{counter}\" are not in order "
                             f"(min {st['min']:g}, median {st['median']:g}, max {st['max']:g})")
        return st

    def median(self, counter):
        s = self.stats(counter)
        return s["median"] if s else None


NAME_RE = re.compile(r"^(?P<kernel>[a-z0-9_]+_(gemv|gemm)_[a-z0-9_]+)/(?P<rows>[0-9]{1,10})x(?P<K>[0-9]{1,10})"
                     r"(?P<rest>(/[^/]+)*)$")
MAX_DIM = 1 << 30


def parse_bench_name(name):
    """'t2p_gemm_avx2/17408x5120/batch:4/threads:1/persistent/manual_time' -> fields, or None."""
    m = NAME_RE.match(name)
    if not m or not (0 < int(m["rows"]) <= MAX_DIM and 0 < int(m["K"]) <= MAX_DIM):
        return None
    f = {"kernel": m["kernel"], "rows": int(m["rows"]), "K": int(m["K"]), "batch": 1, "threads": None, "pool": None}
    for tok in m["rest"].split("/")[1:]:
        key, _, val = tok.partition(":")
        if key in ("batch", "threads") and re.fullmatch(r"[0-9]{1,6}", val) and 0 < int(val) <= MAX_THREADS:
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
            check(e, "dict", path, where)
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
                if len(by_name) == MAX_CASES:
                    _fail(path, f"more than {MAX_CASES} benchmark cases; the plots take at most {MAX_CASES}")
                c = by_name[name] = BenchCase(path, name, **f)
            wanted = BENCH_COUNTERS + (("GMAC/s",) if c.op == "gemm" else ())
            counters = {k: rate(e, k, path, where) if k != "pct_ceiling" else
                        in_range(get(e, k, "num", path, where), 0, 1e6, path, _place(where, k)) for k in wanted}
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

    @property
    def incomplete(self):
        """The folder holds INCOMPLETE (results/SCHEMA.md): the run that wrote it did not finish."""
        return self.has("INCOMPLETE")

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
