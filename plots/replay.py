"""replay.json, the per-op profiler's output, validated field by field (schema in profiles/README.md): the
probe sample paired with every token (and, for a whole token's ops that write, their rulers' samples), each
run's per-token ratios and the flags they imply."""
import json
import statistics

from validate import (FLAG_NAMES, MAX_DIM, MAX_RATE, MAX_RATIO, _fail, check, count, flag_agrees, get, in_range, rate,
                      read_json, spread, stats)

MS = ("min", "median", "max")
HALF_UNIT = 0.00005   # replay.json writes GB/s and ratios with 4 decimals (profiles/replay_report.c)


def _micros(obj, key, path, where):
    """A duration in microseconds: finite, from 0 to a day."""
    return in_range(get(obj, key, "num", path, where), 0, 86400e6, path, f"{where}, \"{key}\"")


def _item(values, i, hi, path, where):
    """values[i]: a finite number from 0 (excluded for a rate) to hi."""
    place = f"{where}[{i}]"
    return in_range(check(values[i], "num", path, place), 0, hi, path, place, lo_open=hi == MAX_RATE)


def _share(obj, key, path, where, hi=1):
    return in_range(get(obj, key, "num", path, where), 0, hi, path, f"{where}, \"{key}\"")


def _overhead(ov, path):
    """timing_overhead as the title shows it: from the per-pair values, "within noise" when their spread holds
    zero; a file from before the pairs has one unpaired ratio of medians, labelled so."""
    where = "timing_overhead"
    median = get(ov, "overhead_pct", "num", path, where)
    if "pairs" not in ov:
        return f"{median:.3g}% (unpaired)"
    pairs = count(ov, "pairs", path, where, hi=1 << 20)
    values = get(ov, "pct_per_pair", "list", path, where)
    if len(values) != pairs:
        _fail(path, f"{where}, \"pct_per_pair\" has {len(values)} values, expected one per pair ({pairs})")
    values = [in_range(check(v, "num", path, f"{where}.pct_per_pair[{i}]"), -100, 1e6, path,
                       f"{where}.pct_per_pair[{i}]") for i, v in enumerate(values)]
    mine = spread(values)
    for n, key in zip(MS, ("min_pct", "overhead_pct", "max_pct")):
        written = get(ov, key, "num", path, where)
        if abs(written - mine[n]) > 2 * HALF_UNIT + 1e-9:
            _fail(path, f"{where}, \"{key}\" is {written:g}, but the {n} of \"pct_per_pair\" is {mine[n]:g}")
    within = get(ov, "within_noise", "bool", path, where)
    # each value rounded on its own: a spread that ends within a half unit of zero may go either way
    if within != (mine["min"] <= 0 <= mine["max"]) and min(abs(mine["min"]), abs(mine["max"])) > HALF_UNIT:
        _fail(path, f"{where}: \"within_noise\" is {json.dumps(within)} but the pairs range from {mine['min']:g} "
                    f"to {mine['max']:g}")
    span = f"{mine['min']:+.3g}% to {mine['max']:+.3g}% over {pairs} pairs"
    return f"within noise ({span}, median {median:+.3g}%)" if within else f"{median:+.3g}% ({span})"


PARTS = ("matvecs", "deltanet", "attention", "state_copies", "rest")
# the probes an op kind is paired with (profiles/README.md, "The rulers"): read, and those of the ops that write
RULERS = ("read", "update", "copy", "copy_nt")


class Op:
    def __init__(self, d, path, where):
        self.name = get(d, "name", "str", path, where)
        # an op between the matvecs (a whole token) has no matrix: rows and K 0
        self.op_kind = get(d, "op_kind", "str", path, where) if "op_kind" in d else "matvec"
        lo = 1 if self.op_kind == "matvec" else 0
        self.rows = count(d, "rows", path, where, lo=lo, hi=MAX_DIM)
        self.K = count(d, "K", path, where, lo=lo, hi=MAX_DIM)
        self.bytes = count(d, "bytes", path, where, lo=0, hi=1 << 62)
        self.lm_head = get(d, "lm_head", "bool", path, where)
        self.ruler = get(d, "ruler", "str", path, where) if "ruler" in d else "read"   # before the rulers: read
        self.wall_us = _micros(d, "wall_us", path, where)
        self.gbs = _share(d, "gbs", path, where, hi=1e12)
        self.pct_ceiling = _share(d, "pct_ceiling", path, where, hi=1e6)
        self.ratio_above_1 = get(d, "ratio_above_1", "bool", path, where)
        if not flag_agrees(self.ratio_above_1, self.pct_ceiling, 100):
            _fail(path, f"{where}: \"ratio_above_1\" is {json.dumps(self.ratio_above_1)} but \"pct_ceiling\" is "
                        f"{self.pct_ceiling:g}")
        threads = get(d, "threads", "list", path, where)
        if not threads:
            _fail(path, f"{where}.threads is empty")
        self.busy_us = [_micros(t, "busy_us", path, f"{where}.threads[{i}]") for i, t in enumerate(threads)]
        self.wait_us = [_micros(t, "wait_us", path, f"{where}.threads[{i}]") for i, t in enumerate(threads)]


class DispatchRun:
    def __init__(self, d, path, where, tokens):
        self.dispatch = get(d, "dispatch", "str", path, where)
        ms = get(d, "ms_per_token", "dict", path, where)
        self.ms_per_token = stats(ms, MS, path, f"{where}.ms_per_token")
        self.tok_s = rate(d, "tok_s", path, where)
        self.bound_tok_s = rate(d, "bound_tok_s", path, where)
        self.gbs = _share(d, "gbs", path, where, hi=1e12)
        self.pct_ceiling = _share(d, "pct_ceiling", path, where, hi=1e6)
        self.wait_share = _share(d, "wait_share", path, where)
        per_token = get(d, "ratio_per_token", "list", path, where)
        if len(per_token) != tokens:
            _fail(path, f"{where}, \"ratio_per_token\" has {len(per_token)} values, expected one per token ({tokens})")
        self.ratio_per_token = [_item(per_token, i, MAX_RATIO, path, f"{where}.ratio_per_token") for i in range(tokens)]
        ratio = get(d, "ratio", "dict", path, where)
        self.ratio = {n: _share(ratio, n, path, f"{where}.ratio", hi=MAX_RATIO) for n in MS}
        mine = spread(self.ratio_per_token)
        for n in MS:   # each rounded to 4 decimals on its own: two half units apart at most
            if abs(self.ratio[n] - mine[n]) > 2 * HALF_UNIT + 1e-9:
                _fail(path, f"{where}.ratio, \"{n}\" is {self.ratio[n]:g}, but the {n} of \"ratio_per_token\" is "
                            f"{mine[n]:g}")
        self.ratio_above_1 = get(d, "ratio_above_1", "bool", path, where)
        if not flag_agrees(self.ratio_above_1, mine["max"], 1):
            _fail(path, f"{where}: \"ratio_above_1\" is {json.dumps(self.ratio_above_1)} but the highest of "
                        f"\"ratio_per_token\" is {mine['max']:g}")
        ops = get(d, "ops", "list", path, where)
        if not ops:
            _fail(path, f"{where}.ops is empty")
        self.ops = [Op(o, path, f"{where}.ops[{i}]") for i, o in enumerate(ops)]
        # the whole token's kinds, each named by its ruler (checked against the rulers sampled)
        self.kind_rulers = []
        for i, k in enumerate(get(d, "kinds", "list", path, where) if "kinds" in d else []):
            place = f"{where}.kinds[{i}]"
            if "ruler" in check(k, "dict", path, place):
                self.kind_rulers.append((place, get(k, "ruler", "str", path, place)))
        # the whole token: its KV length and the headline split of every token
        self.context = count(d, "context", path, where, lo=0, hi=1 << 30) if "context" in d else None
        self.split = None
        if "split" in d:
            split = get(d, "split", "dict", path, where)
            self.split = {}
            for part in PARTS:
                s = get(split, part, "dict", path, f"{where}.split")
                self.split[part] = {k: in_range(get(s, k, "num", path, f"{where}.split.{part}"), 0, 86400e3, path,
                                                f"{where}.split.{part}, \"{k}\"")
                                    for k in ("ms_min", "ms_median", "ms_max")}
        if "ops_sum_over_wall" in d:
            self.ops_sum_over_wall = stats(get(d, "ops_sum_over_wall", "dict", path, where), MS, path,
                                           f"{where}.ops_sum_over_wall")
        self.slowest = [check(s, "str", path, f"{where}.slowest[{i}]")
                        for i, s in enumerate(get(d, "slowest", "list", path, where))]

    @property
    def label(self):
        """The run as the panels name it: its dispatch, and its context for a whole token."""
        return self.dispatch if self.context is None else f"{self.dispatch} L={self.context}"


class Replay:
    def __init__(self, path):
        d = read_json(path)
        check(d, "dict", path, "the top level")
        self.context = get(d, "context", "dict", path, "")
        self.model = get(d, "model", "str", path, "")
        self.kernel = get(d, "kernel", "str", path, "")
        self.threads = count(d, "threads", path, "")
        self.batch = count(d, "batch", path, "")
        self.memory = get(d, "memory", "str", path, "")
        self.tokens = count(d, "tokens", path, "", hi=1 << 20)
        self.ceiling_gbs = rate(d, "ceiling_gbs", path, "")
        samples = get(d, "probe_gbs_per_token", "list", path, "")
        if len(samples) != self.tokens:
            _fail(path, f"\"probe_gbs_per_token\" has {len(samples)} samples, expected one per token ({self.tokens})")
        self.probe_gbs_per_token = [_item(samples, i, MAX_RATE, path, "probe_gbs_per_token") for i in range(self.tokens)]
        median = statistics.median(self.probe_gbs_per_token)
        if abs(self.ceiling_gbs - median) > 2 * HALF_UNIT + 1e-9:
            _fail(path, f"\"ceiling_gbs\" is {self.ceiling_gbs:g}, but the median of \"probe_gbs_per_token\" is {median:g}")
        self.rulers = self._rulers(d, path)
        self.cold = get(d, "cold", "bool", path, "")
        self.probe_cache_resident = get(d, "ceiling_buffer_cache_resident", "bool", path, "")
        texts = get(d, "flags", "dict", path, "")
        self.flag_text = {k: get(texts, k, "str", path, "flags") for k in ("ratio_above_1", "cold_false")}
        self.weight_bytes_per_token = count(d, "weight_bytes_per_token", path, "", lo=0, hi=1 << 62)
        self.overhead_text = _overhead(get(d, "timing_overhead", "dict", path, ""), path)
        self.straggler = d.get("straggler")
        if self.straggler is not None:
            check(self.straggler, "dict", path, "straggler")
            count(self.straggler, "thread", path, "straggler", lo=0)
            get(self.straggler, "us", "num", path, "straggler")
        runs = get(d, "runs", "list", path, "")
        if not runs:
            _fail(path, "\"runs\" is empty")
        self.runs = [DispatchRun(r, path, f"runs[{i}]", self.tokens) for i, r in enumerate(runs)]
        for i, r in enumerate(self.runs):   # a pairing names a ruler whose samples are there
            named = [(f"runs[{i}].ops[{j}]", o.ruler) for j, o in enumerate(r.ops)] + r.kind_rulers
            for where, ruler in named:
                if ruler not in self.rulers:
                    _fail(path, f"{where}: \"ruler\" is \"{ruler}\", but \"rulers\" has no samples of it")
        self.whole_token = get(d, "whole_token", "bool", path, "") if "whole_token" in d else False
        if self.whole_token and any(r.split is None or r.context is None for r in self.runs):
            _fail(path, "\"whole_token\" is true, but a run has no \"context\" or \"split\"")
        self.crossover = d.get("crossover") if self.whole_token else None
        if self.crossover is not None:
            check(self.crossover, "dict", path, "crossover")
            for k in ("attention_intercept_ms", "attention_ms_per_position", "matvecs_ms", "context"):
                get(self.crossover, k, "num", path, "crossover")

    def _rulers(self, d, path):
        """{ruler: its sample per token}: the read probe's are probe_gbs_per_token; a file from before the
        rulers has those alone."""
        if "rulers" not in d:
            return {"read": self.probe_gbs_per_token}
        out = {}
        for i, r in enumerate(get(d, "rulers", "list", path, "")):
            where = f"rulers[{i}]"
            check(r, "dict", path, where)
            name = get(r, "ruler", "str", path, where)
            if name not in RULERS:
                _fail(path, f"{where}: \"ruler\" is {json.dumps(name)}, expected one of {', '.join(RULERS)}")
            if name in out:
                _fail(path, f"{where}: the {name} ruler appears twice")
            samples = get(r, "gbs_per_token", "list", path, where)
            if len(samples) != self.tokens:
                _fail(path, f"{where}, \"gbs_per_token\" has {len(samples)} samples, expected one per token "
                            f"({self.tokens})")
            out[name] = [_item(samples, k, MAX_RATE, path, f"{where}.gbs_per_token") for k in range(self.tokens)]
        if "read" not in out:
            _fail(path, "\"rulers\" has no read ruler")
        if any(abs(a - b) > 2 * HALF_UNIT + 1e-9 for a, b in zip(out["read"], self.probe_gbs_per_token)):
            _fail(path, "\"rulers\": the read ruler's samples are not \"probe_gbs_per_token\"")
        return out

    def ruler_text(self):
        """The rulers' medians as a legend says them: "read R, update U, copy_nt C GB/s", 3 digits each."""
        return ", ".join(f"{name} {statistics.median(v):.3g}" for name, v in self.rulers.items()) + " GB/s"

    @property
    def cache_resident(self):
        """The weights (not cold: below 4 x LLC plus the largest matvec) or the probe buffer may sit in the cache."""
        return not self.cold or self.probe_cache_resident

    def flag_label(self, flag):
        """The text of a flag as the legend shows it."""
        if flag == "ratio_above_1":
            return f"{FLAG_NAMES[flag]}: {self.flag_text['ratio_above_1']}"
        why = [self.flag_text["cold_false"]] if not self.cold else []
        why += ["the probe buffer is below 4 x LLC"] if self.probe_cache_resident else []
        return f"{FLAG_NAMES[flag]}: {'; '.join(why)}"
