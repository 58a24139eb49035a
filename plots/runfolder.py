"""Loads and validates a run folder written by `ciot suite` (results/<date>-<host>-<commit>/).

Every problem with an input file becomes one InputError naming the file and what is wrong (the key
too, for a bad value), so the scripts can print one line and exit non-zero instead of a traceback.
Values the plots divide by or draw on log axes are checked here: rates are positive, min <= median <=
max, counts and lists have sane bounds, so a plot never divides by zero, never loops on a nonsense
value and never works for minutes on an absurd file. Files are read lazily: a plot that does not need
compute.json does not fail when it is missing.
"""
import json
import os
import statistics

from replay import Replay
from validate import (FLAG_NAMES, FLAGS, MAX_DIM, MAX_RATE, STAT_NAMES, InputError, _fail, _place, _show, check, count,
                      flag_agrees, get, in_range, rate, ratio_value, read_json, spread, stats)

MAX_CASES = 4096               # benchmark cases of one bench.json (a suite has about 64)


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
    def __init__(self, name, threads, stats, note, cache_resident, low_outlier=False, domain=None):
        self.name, self.threads, self.stats, self.note = name, threads, stats, note
        self.cache_resident, self.low_outlier = cache_resident, low_outlier
        self.domain = domain   # bw.json under `ciot bw --place domains`: the domain measured alone, or "all"


# harness/measure/stats.h: a probe sample below this fraction of its median is flagged low_outlier
LOW_OUTLIER = 0.5


def low_outlier_agrees(flag, value, median, half_unit):
    """A written low_outlier flag against the written (rounded) sample and median: a sample that rounds to
    the limit may carry either."""
    limit = LOW_OUTLIER * median
    return flag == (value < limit) or abs(value - limit) <= 1.5 * half_unit + 1e-12


def optional_flag(d, key, path, where):
    """A flag newer files write and older ones lack: None when absent, else a bool."""
    return get(d, key, "bool", path, where) if key in d else None


def _probe(path, probe, name_key, unit):
    """bw.json / compute.json: results[] of {name_key, threads, min_/median_/max_<unit>}; bw.json says
    whether its buffer was cache-resident (below 4 x LLC)."""
    d = read_json(path)
    check(d, "dict", path, "the top level")
    if d.get("probe") != probe:
        _fail(path, f"\"probe\" is {json.dumps(d.get('probe'))}, expected \"{probe}\"")
    cache = get(d, "cache_resident", "bool", path, "") if probe == "bw" else False
    results = get(d, "results", "list", path, "")
    if not results:
        _fail(path, "\"results\" is empty")
    rows = []
    for i, r in enumerate(results):
        where = f"results[{i}]"
        st = stats(r, [f"{s}_{unit}" for s in STAT_NAMES], path, where)
        note_key = "traffic" if probe == "bw" else "instruction"
        note = r.get(note_key, "") if isinstance(r.get(note_key), str) else ""
        low = optional_flag(r, "low_outlier", path, where)
        if low is not None and not low_outlier_agrees(low, st["min"], st["median"], 0.0005):
            _fail(path, f"{where}: \"low_outlier\" is {json.dumps(low)} but min_{unit} {st['min']:g} is "
                        f"{'' if st['min'] < LOW_OUTLIER * st['median'] else 'not '}below half median_{unit} "
                        f"{st['median']:g}")
        domain = get(r, "domain", "str", path, where) if r.get("domain") is not None else None
        rows.append(ProbeRow(get(r, name_key, "str", path, where), count(r, "threads", path, where), st, note, cache,
                             bool(low), domain))
    return rows


REP_RATES = ("gweights_s", "kernel_gbs", "probe_gbs")
REP_FIELDS = REP_RATES + ("ratio",)
MAX_BYTES = 1 << 62
BENCH_SCHEMA = 3               # 3 adds each row's roof (harness/measure/roof.h); 2, before it, is still read
BENCH_SCHEMAS = (2, 3)
ROOF_SLACK = 2e-3              # relative: a roof or a ratio recomputed from values written to 3-4 decimals
NO_ROOF_SCHEMA_2 = "schema 2: no compute roof recorded"
# ciot writes every digit (harness/cmd/bench_report.cc); the slack allowed when a written value is checked
# against the written values it was computed from covers files rounded to 3 decimals (rates) and 4 (ratios).
HALF_UNIT = {"gweights_s": 0.0005, "kernel_gbs": 0.0005, "probe_gbs": 0.0005, "ratio": 0.00005}


def roof_agrees(written, exact):
    """A roof or ratio ciot computed (written) against the same figure recomputed from the written inputs."""
    return abs(written - exact) <= ROOF_SLACK * abs(exact) + 1e-4


class Rep:
    """One repetition: the kernel's sample, the read-probe sample paired with it, and (schema 3) the roof it
    is judged against: for a gemm whose kernel multiplies with a family, the compute sample paired with it."""

    def __init__(self, d, path, where):
        check(d, "dict", path, where)
        for k in REP_RATES:
            setattr(self, k, rate(d, k, path, where))
        self.ratio = ratio_value(d, "ratio", path, where)
        self.ratio_above_1 = get(d, "ratio_above_1", "bool", path, where)
        k, p, h = self.kernel_gbs, self.probe_gbs, HALF_UNIT["probe_gbs"]
        lo, hi = max(k - h, 0) / (p + h), (k + h) / max(p - h, 1e-300)
        if not lo - HALF_UNIT["ratio"] - 1e-9 <= self.ratio <= hi + HALF_UNIT["ratio"] + 1e-9:
            _fail(path, f"{where}: \"ratio\" {self.ratio:g} is not kernel_gbs / probe_gbs "
                        f"({k:g} / {p:g} = {k / p:.4g})")
        if not flag_agrees(self.ratio_above_1, self.ratio, 1):
            _fail(path, f"{where}: \"ratio_above_1\" is {json.dumps(self.ratio_above_1)} but \"ratio\" is {self.ratio:g}")
        self._d = d

    def roof(self, case, path, where):
        """The roof of this repetition (harness/measure/method.md, "Every row against its own roof"), checked against
        the repetition's own figures; a schema-2 file has none recorded: a gemv's is its read ratio, a gemm
        gets none."""
        gemm, bw = case.op == "gemm", self.probe_gbs * case.intensity
        if case.schema == 2:
            self.compute_gmacs, self.bw_roof_gmacs = None, bw
            self.bound = None if gemm else "bw"
            self.bound_gmacs, self.ratio_to_bound = (None, None) if gemm else (bw, self.ratio)
            self.above_compute_roof = False
            return
        d = self._d
        self.compute_gmacs = None if d.get("compute_gmacs", 0) is None else rate(d, "compute_gmacs", path, where)
        if (self.compute_gmacs is None) != (case.compute_family is None):
            _fail(path, f"{where}: \"compute_gmacs\" is {_show(d.get('compute_gmacs'))} but the case's "
                        f"\"compute_family\" is {_show(case.compute_family)}")
        self.bw_roof_gmacs = rate(d, "bw_roof_gmacs", path, where)
        if not roof_agrees(self.bw_roof_gmacs, bw):
            _fail(path, f"{where}: \"bw_roof_gmacs\" {self.bw_roof_gmacs:g} is not probe_gbs x intensity "
                        f"({self.probe_gbs:g} x {case.intensity:g} = {bw:.6g})")
        self.bound = get(d, "bound", "str", path, where) if d.get("bound") is not None else None
        if not gemm:
            want = ["bw"]
        elif self.compute_gmacs is None:
            want = [None]
        else:   # at the ridge either may be written
            c, b = self.compute_gmacs, self.bw_roof_gmacs
            want = ["compute", "bw"] if roof_agrees(c, b) else ["compute" if c < b else "bw"]
        if self.bound not in want:
            _fail(path, f"{where}: \"bound\" is {_show(self.bound)}, expected "
                        f"{' or '.join(_show(w) for w in want)} (op {case.op}, compute_gmacs "
                        f"{_show(self.compute_gmacs)}, bw_roof_gmacs {self.bw_roof_gmacs:g})")
        if self.bound is None:
            for k in ("bound_gmacs", "ratio_to_bound"):
                if d.get(k, 0) is not None:
                    _fail(path, f"{where}: \"{k}\" is {_show(d.get(k))}, expected null (no compute roof)")
            self.bound_gmacs = self.ratio_to_bound = None
        else:
            self.bound_gmacs = rate(d, "bound_gmacs", path, where)
            want_gmacs = self.bw_roof_gmacs if self.bound == "bw" else self.compute_gmacs
            if not roof_agrees(self.bound_gmacs, want_gmacs):
                _fail(path, f"{where}: \"bound_gmacs\" {self.bound_gmacs:g} is not the {self.bound} roof "
                            f"{want_gmacs:g}")
            self.ratio_to_bound = ratio_value(d, "ratio_to_bound", path, where)
            exact = self.ratio if self.bound == "bw" else self.gweights_s / self.bound_gmacs
            if not roof_agrees(self.ratio_to_bound, exact):
                _fail(path, f"{where}: \"ratio_to_bound\" {self.ratio_to_bound:g} is not "
                            f"{'the read ratio' if self.bound == 'bw' else 'gweights_s / bound_gmacs'} "
                            f"({exact:.4g})")
        self.above_compute_roof = get(d, "above_compute_roof", "bool", path, where)
        over = self.bound == "compute" and self.ratio_to_bound > 1
        if self.above_compute_roof != over and not (self.bound == "compute" and self.ratio_to_bound == 1):
            _fail(path, f"{where}: \"above_compute_roof\" is {json.dumps(self.above_compute_roof)} but the "
                        f"repetition is {'' if over else 'not '}above its compute roof")


class BenchCase:
    """One case of bench.json: its repetitions, each with its paired probe sample and ratio, and (schema 3)
    the roof each is judged against."""

    def __init__(self, d, path, where, probe_cache_resident, schema=BENCH_SCHEMA):
        check(d, "dict", path, where)
        self.path, self.schema = path, schema
        self.name = get(d, "name", "str", path, where)
        where = f"case \"{self.name}\""
        self.kernel = get(d, "kernel", "str", path, where)
        self.layout = get(d, "layout", "str", path, where)
        # the file format the kernel reads (older runs lack it: their layouts then stand for it)
        self.source = get(d, "source", "str", path, where) if d.get("source") is not None else self.layout
        # "peer": a runtime's own type (ciot bench --peer), its kernel named MODULE:TYPE; older runs have only ciot's
        self.engine = get(d, "engine", "str", path, where) if d.get("engine") is not None else "ciot"
        if self.engine not in ("ciot", "peer"):
            _fail(path, f"{where}, \"engine\" is {_show(self.engine)}, expected \"ciot\" or \"peer\"")
        self.op = get(d, "op", "str", path, where)
        if self.op not in ("gemv", "gemm"):
            _fail(path, f"{where}, \"op\" is {_show(self.op)}, expected \"gemv\" or \"gemm\"")
        self.tensor = get(d, "tensor", "str", path, where) if d.get("tensor") is not None else None
        self.rows = count(d, "rows", path, where, hi=MAX_DIM)
        self.K = count(d, "K", path, where, hi=MAX_DIM)
        self.batch = count(d, "batch", path, where)
        self.threads = count(d, "threads", path, where)
        self.pool = get(d, "pool", "str", path, where)
        if self.pool not in ("persistent", "spawn"):
            _fail(path, f"{where}, \"pool\" is {_show(self.pool)}, expected \"persistent\" or \"spawn\"")
        self.matrix_bytes = count(d, "matrix_bytes", path, where, hi=MAX_BYTES)
        # the probe buffer fitting in the cache makes every ratio of the file suspect, not only this case's
        self.cache_resident = get(d, "cache_resident", "bool", path, where) or probe_cache_resident
        reps = get(d, "repetitions", "list", path, where)
        if not reps:
            _fail(path, f"{where}, \"repetitions\" is empty")
        self.reps = [Rep(r, path, f"{where}, repetitions[{i}]") for i, r in enumerate(reps)]
        self.ratio_above_1 = any(r.ratio_above_1 for r in self.reps)
        self._roof_fields(d, path, where)
        for i, r in enumerate(self.reps):
            r.roof(self, path, f"{where}, repetitions[{i}]")
        self.above_compute_roof = any(r.above_compute_roof for r in self.reps)
        self.low_outlier = self._check_outliers(path, where)
        summary = get(d, "summary", "dict", path, where)
        self._check_summary(summary, path, f"{where}, summary")
        if schema >= 3:
            self._check_roof_summary(summary, path, f"{where}, summary")

    def _roof_fields(self, d, path, where):
        """intensity, compute_family, no_compute_roof (schema 3; derived for schema 2)."""
        exact = self.rows * self.K * self.batch / self.matrix_bytes
        if self.schema == 2:
            self.intensity, self.compute_family, self.compute_instruction = exact, None, None
            self.no_compute_roof = NO_ROOF_SCHEMA_2 if self.op == "gemm" else None
            return
        self.intensity = in_range(get(d, "intensity", "num", path, where), 0, MAX_RATE, path,
                                  _place(where, "intensity"), lo_open=True)
        if not roof_agrees(self.intensity, exact):
            _fail(path, f"{where}, \"intensity\" is {self.intensity:g}, but rows x K x batch / matrix_bytes is {exact:.6g}")
        nullable = lambda k: get(d, k, "str", path, where) if d.get(k, 0) is not None else None   # noqa: E731
        self.compute_family, self.compute_instruction = nullable("compute_family"), nullable("compute_instruction")
        self.no_compute_roof = nullable("no_compute_roof")
        if self.op == "gemv" and (self.compute_family or self.no_compute_roof):
            _fail(path, f"{where}: a gemv has no compute roof (its roof is the read ceiling), but "
                        f"\"compute_family\" is {_show(self.compute_family)}, \"no_compute_roof\" "
                        f"{_show(self.no_compute_roof)}")
        if self.op == "gemm" and (self.compute_family is None) == (self.no_compute_roof is None):
            _fail(path, f"{where}: a gemm has either \"compute_family\" or \"no_compute_roof\", not "
                        f"{'both' if self.compute_family else 'neither'}")

    def _check_roof_summary(self, s, path, where):
        """The summary's roof figures say what the repetitions say."""
        def spread_agrees(key, vals):
            sub = s.get(key, 0)
            if not vals:
                if sub is not None:
                    _fail(path, f"{where}, \"{key}\" is {_show(sub)}, expected null")
                return
            sub = get(s, key, "dict", path, where)
            mine = spread(vals)
            for n in STAT_NAMES:
                w = get(sub, n, "num", path, f"{where}.{key}")
                if not roof_agrees(w, mine[n]):
                    _fail(path, f"{where}.{key}, \"{n}\" is {w:g}, but the repetitions' {n} is {mine[n]:g}")
        spread_agrees("compute_gmacs", [r.compute_gmacs for r in self.reps if r.compute_gmacs is not None])
        spread_agrees("bw_roof_gmacs", [r.bw_roof_gmacs for r in self.reps])
        spread_agrees("ratio_to_bound", [r.ratio_to_bound for r in self.reps if r.ratio_to_bound is not None])
        bound = get(s, "bound", "str", path, where) if s.get("bound", 0) is not None else None
        if bound != self.bound:
            _fail(path, f"{where}, \"bound\" is {_show(bound)}, but the repetitions' medians give {_show(self.bound)}")
        if get(s, "above_compute_roof", "bool", path, where) != self.above_compute_roof:
            _fail(path, f"{where}, \"above_compute_roof\" is {json.dumps(s['above_compute_roof'])}, but "
                        f"{'a' if self.above_compute_roof else 'no'} repetition has it")

    @property
    def bound(self):
        """The row's roof: a gemv's is bw; a gemm's the lower roof at the medians of its repetitions, None
        without a compute roof (the rule of harness/cmd/bench_report.cc)."""
        if self.op == "gemv":
            return "bw"
        comp = [r.compute_gmacs for r in self.reps if r.compute_gmacs is not None]
        if not comp:
            return None
        return "compute" if statistics.median(comp) < self.median("bw_roof_gmacs") else "bw"

    def roof_stats(self):
        """min / median / max of the per-repetition ratio to the bound, or None for a row without one."""
        vals = [r.ratio_to_bound for r in self.reps if r.ratio_to_bound is not None]
        return spread(vals) if vals else None

    @property
    def roof_note(self):
        """'bw', 'compute', or why there is none ('lookup: no multiplies', ...), as a legend says it."""
        return self.bound or f"none ({self.no_compute_roof})"

    def _check_outliers(self, path, where):
        """Each repetition's low_outlier (absent in files written before the rule): its read sample, or its
        compute sample, below half the case's median of that kind (harness/cmd/bench_report.cc). True when
        some repetition carries it."""
        probe = statistics.median(self.values("probe_gbs"))
        comp = [r.compute_gmacs for r in self.reps if getattr(r, "compute_gmacs", None) is not None]
        comp_median = statistics.median(comp) if comp else None
        h = HALF_UNIT["probe_gbs"]
        for i, r in enumerate(self.reps):
            place = f"{where}, repetitions[{i}]"
            r.low_outlier = optional_flag(r._d, "low_outlier", path, place)
            if r.low_outlier is None:
                continue
            samples = [(r.probe_gbs, probe, "probe_gbs")]
            if getattr(r, "compute_gmacs", None) is not None:
                samples.append((r.compute_gmacs, comp_median, "compute_gmacs"))
            low = [k for v, m, k in samples if v < LOW_OUTLIER * m]
            near = any(abs(v - LOW_OUTLIER * m) <= 1.5 * h + 1e-12 for v, m, _ in samples)
            if r.low_outlier != bool(low) and not near:
                _fail(path, f"{place}: \"low_outlier\" is {json.dumps(r.low_outlier)} but "
                            + (f"its {low[0]} is below half the case's median" if low else
                               "no sample of it is below half the case's median"))
        return any(r.low_outlier for r in self.reps)

    def _check_summary(self, s, path, where):
        """The summary is what the tables print: it must say what the repetitions say, flags included."""
        for k in REP_FIELDS:
            sub, place = get(s, k, "dict", path, where), f"{where}.{k}"
            written = (stats(sub, STAT_NAMES, path, place) if k != "ratio" else
                       {n: ratio_value(sub, n, path, place) for n in STAT_NAMES})
            mine = self.stats(k)
            for n in STAT_NAMES:   # both rounded to the written decimals: two half units apart at most
                if abs(written[n] - mine[n]) > 2 * HALF_UNIT[k] + 1e-9:
                    _fail(path, f"{place}, \"{n}\" is {written[n]:g}, but the repetitions' {n} is {mine[n]:g}")
        if get(s, "ratio_above_1", "bool", path, where) != self.ratio_above_1:
            _fail(path, f"{where}, \"ratio_above_1\" is {json.dumps(s['ratio_above_1'])}, but "
                        f"{'a' if self.ratio_above_1 else 'no'} repetition has it")
        written_low = optional_flag(s, "low_outlier", path, where)
        if written_low is not None and written_low != self.low_outlier:
            _fail(path, f"{where}, \"low_outlier\" is {json.dumps(written_low)}, but "
                        f"{'a' if self.low_outlier else 'no'} repetition has it")
        flags = [check(f, "str", path, f"{where}.flags[{i}]") for i, f in enumerate(get(s, "flags", "list", path, where))]
        want = self.flags
        if sorted(flags) != sorted(want):
            _fail(path, f"{where}, \"flags\" is {_show(flags)}, expected {_show(want)} (from the repetitions "
                        f"and \"cache_resident\")")

    @property
    def shape(self):
        """rows x K, with the tensor's name for a GGUF tensor (ciot bench --gguf)."""
        return (f"{self.tensor} " if self.tensor else "") + f"{self.rows}x{self.K}"

    @property
    def bytes_per_weight(self):
        """Packed bytes per weight, scales included: what turns this layout's GB/s into Gweights/s."""
        return self.matrix_bytes / (self.rows * self.K)

    @property
    def flags(self):
        """The flags that apply, in FLAGS order: ratio_above_1 (a repetition read above its paired probe),
        above_compute_roof (a compute-bound repetition above its compute sample), cache_resident (the
        weights, or the probe buffer, smaller than 4 x LLC)."""
        return [f for f, on in zip(FLAGS, (self.ratio_above_1, self.above_compute_roof, self.cache_resident,
                                           self.low_outlier)) if on]

    def values(self, field):
        return [getattr(r, field) for r in self.reps]

    def stats(self, field):
        """min / median / max over the repetitions of gweights_s, kernel_gbs, probe_gbs or ratio."""
        return spread(self.values(field))

    def median(self, field):
        return statistics.median(self.values(field))


class Bench:
    """bench.json: ciot's own document, schema 3 (results/SCHEMA.md); schema 2, written before each row had
    its own roof, is read too (its gemm rows have none)."""

    def __init__(self, path):
        d = read_json(path)
        check(d, "dict", path, "the top level")
        schema = d.get("schema", "missing")
        if schema not in BENCH_SCHEMAS or isinstance(schema, bool):
            shown = schema if schema == "missing" else _show(schema)
            _fail(path, f"schema {shown}, expected {BENCH_SCHEMA} (ciot bench --json of this version) or 2")
        self.schema = schema
        if d.get("bench") != "ciot":
            _fail(path, f"\"bench\" is {_show(d.get('bench'))}, expected \"ciot\"")
        self.context = get(d, "context", "dict", path, "")
        proto = get(d, "protocol", "dict", path, "")
        self.buffers = {}
        for b in ("weights", "probe"):
            buf = get(proto, b, "dict", path, "protocol")
            self.buffers[b] = dict(bytes=count(buf, "bytes", path, f"protocol.{b}", hi=MAX_BYTES),
                                   cache_resident=get(buf, "cache_resident", "bool", path, f"protocol.{b}"))
        texts = get(proto, "flags", "dict", path, "protocol")
        self.flag_text = {f: get(texts, f, "str", path, "protocol.flags") for f in FLAGS
                          if (schema >= 3 or f != "above_compute_roof") and (f != "low_outlier" or f in texts)}
        cases = get(d, "cases", "list", path, "")
        if len(cases) > MAX_CASES:
            _fail(path, f"more than {MAX_CASES} benchmark cases; the plots take at most {MAX_CASES}")
        if not cases:
            _fail(path, "\"cases\" is empty: no benchmark results")
        self.cases, seen = [], set()
        for i, c in enumerate(cases):
            case = BenchCase(c, path, f"cases[{i}]", self.buffers["probe"]["cache_resident"], schema)
            if case.name in seen:
                _fail(path, f"case \"{case.name}\" appears twice")
            seen.add(case.name)
            self.cases.append(case)

    def paired_probe(self, threads, pool="persistent"):
        """Every paired probe sample of the cases on this pool at this thread count, in file order, or []."""
        return [r.probe_gbs for c in self.cases if c.pool == pool and c.threads == threads for r in c.reps]

    def paired_compute(self, family, threads, pool="persistent"):
        """Every compute sample paired with the cases of this family on this pool at this thread count, or []."""
        return [r.compute_gmacs for c in self.cases if c.pool == pool and c.threads == threads
                and c.compute_family == family for r in c.reps]

    def flag_label(self, flag):
        """'ratio above 100%: probe slower than the kernel: ...' as the file words it."""
        text = self.flag_text[flag]
        return text if text.startswith(FLAG_NAMES[flag]) else f"{FLAG_NAMES[flag]}: {text}"


class Run:
    """A run folder; each file is read and validated on first use."""

    def __init__(self, path):
        self.path = os.path.normpath(path)
        if not os.path.isdir(self.path):
            raise InputError(f"{path}: not a run folder ({'not a folder' if os.path.exists(self.path) else 'no such folder'})")
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
        return self._load("replay.json", Replay)

    def has(self, name):
        return os.path.exists(self.file(name))

    @property
    def incomplete(self):
        """The folder holds INCOMPLETE (results/SCHEMA.md): the run that wrote it did not finish."""
        return self.has("INCOMPLETE")

    # --- derived figures the plots share ---

    def paired_ceiling(self, threads):
        """{min, median, max, samples} of every paired read-probe sample of the persistent-pool cases at this
        thread count (bench.json): the read ceiling the roofline and the scaling plot draw. None if no case."""
        samples = self.bench.paired_probe(threads)
        return dict(spread(samples), samples=len(samples)) if samples else None

    def compute_roof(self, threads):
        """(family, instruction, median GOPS) of the fastest compute family at this thread count, or None."""
        # the int8 rows: the fp32 ones (fma32_, f16fma_) are the token ops' roofs, not a gemm's
        rows = [r for r in self.compute if r.threads == threads and not r.name.startswith(("fma32_", "f16fma_"))]
        if not rows:
            return None
        best = max(rows, key=lambda r: r.stats["median"])
        return best.name, best.note, best.stats["median"]

    def stock_for(self, case):
        """The stock kernel the speed-ups are over: the fastest pq2_0 gemv at the same threads and pool
        (as `ciot suite`'s summary chooses it)."""
        stock = [c for c in self.bench.cases if c.kernel.startswith("pq2_0_gemv") and c.threads == case.threads
                 and c.pool == case.pool]
        return max(stock, key=lambda c: c.median("gweights_s"), default=None)

    def title(self, what):
        c = self.context
        flags = [f for f, on in (("dirty", c.dirty), ("quick run", c.quick)) if on]
        return f"{what}: {c.host} ({c.cpu}), {c.date}, commit {c.commit}" + (f" [{', '.join(flags)}]" if flags else "")
