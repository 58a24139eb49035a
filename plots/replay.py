"""replay.json, the per-op profiler's output, validated field by field (schema in plots/README.md)."""
from runfolder import MAX_DIM, check, count, get, in_range, rate, read_json, stats, _fail

MS = ("min", "median", "max")


def _micros(obj, key, path, where):
    """A duration in microseconds: finite, from 0 to a day."""
    return in_range(get(obj, key, "num", path, where), 0, 86400e6, path, f"{where}, \"{key}\"")


def _share(obj, key, path, where, hi=1):
    return in_range(get(obj, key, "num", path, where), 0, hi, path, f"{where}, \"{key}\"")


class Op:
    def __init__(self, d, path, where):
        self.name = get(d, "name", "str", path, where)
        self.rows = count(d, "rows", path, where, hi=MAX_DIM)
        self.K = count(d, "K", path, where, hi=MAX_DIM)
        self.bytes = count(d, "bytes", path, where, lo=0, hi=1 << 62)
        self.lm_head = get(d, "lm_head", "bool", path, where)
        self.wall_us = _micros(d, "wall_us", path, where)
        self.gbs = _share(d, "gbs", path, where, hi=1e12)
        self.pct_ceiling = _share(d, "pct_ceiling", path, where, hi=1e6)
        threads = get(d, "threads", "list", path, where)
        if not threads:
            _fail(path, f"{where}.threads is empty")
        self.busy_us = [_micros(t, "busy_us", path, f"{where}.threads[{i}]") for i, t in enumerate(threads)]
        self.wait_us = [_micros(t, "wait_us", path, f"{where}.threads[{i}]") for i, t in enumerate(threads)]


class DispatchRun:
    def __init__(self, d, path, where):
        self.dispatch = get(d, "dispatch", "str", path, where)
        ms = get(d, "ms_per_token", "dict", path, where)
        self.ms_per_token = stats(ms, MS, path, f"{where}.ms_per_token")
        self.tok_s = rate(d, "tok_s", path, where)
        self.bound_tok_s = rate(d, "bound_tok_s", path, where)
        self.gbs = _share(d, "gbs", path, where, hi=1e12)
        self.pct_ceiling = _share(d, "pct_ceiling", path, where, hi=1e6)
        self.wait_share = _share(d, "wait_share", path, where)
        ops = get(d, "ops", "list", path, where)
        if not ops:
            _fail(path, f"{where}.ops is empty")
        self.ops = [Op(o, path, f"{where}.ops[{i}]") for i, o in enumerate(ops)]
        self.slowest = [check(s, "str", path, f"{where}.slowest[{i}]")
                        for i, s in enumerate(get(d, "slowest", "list", path, where))]


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
        self.tokens = count(d, "tokens", path, "", hi=1 << 30)
        self.ceiling_gbs = get(d, "ceiling_gbs", "num", path, "")
        self.weight_bytes_per_token = count(d, "weight_bytes_per_token", path, "", lo=0, hi=1 << 62)
        ov = get(d, "timing_overhead", "dict", path, "")
        self.overhead_pct = get(ov, "overhead_pct", "num", path, "timing_overhead")
        self.straggler = d.get("straggler")
        if self.straggler is not None:
            check(self.straggler, "dict", path, "straggler")
            count(self.straggler, "thread", path, "straggler", lo=0)
            get(self.straggler, "us", "num", path, "straggler")
        runs = get(d, "runs", "list", path, "")
        if not runs:
            _fail(path, "\"runs\" is empty")
        self.runs = [DispatchRun(r, path, f"runs[{i}]") for i, r in enumerate(runs)]
