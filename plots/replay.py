"""replay.json, the per-op profiler's output, validated field by field (schema in plots/README.md)."""
from runfolder import check, get, positive, read_json, _fail

MS = ("min", "median", "max")


class Op:
    def __init__(self, d, path, where):
        self.name = get(d, "name", "str", path, where)
        self.rows = get(d, "rows", "int", path, where)
        self.K = get(d, "K", "int", path, where)
        self.bytes = get(d, "bytes", "int", path, where)
        self.lm_head = get(d, "lm_head", "bool", path, where)
        self.wall_us = get(d, "wall_us", "num", path, where)
        self.gbs = get(d, "gbs", "num", path, where)
        self.pct_ceiling = get(d, "pct_ceiling", "num", path, where)
        threads = get(d, "threads", "list", path, where)
        if not threads:
            _fail(path, f"{where}.threads is empty")
        self.busy_us = [get(t, "busy_us", "num", path, f"{where}.threads[{i}]") for i, t in enumerate(threads)]
        self.wait_us = [get(t, "wait_us", "num", path, f"{where}.threads[{i}]") for i, t in enumerate(threads)]


class DispatchRun:
    def __init__(self, d, path, where):
        self.dispatch = get(d, "dispatch", "str", path, where)
        ms = get(d, "ms_per_token", "dict", path, where)
        self.ms_per_token = {k: get(ms, k, "num", path, f"{where}.ms_per_token") for k in MS}
        self.tok_s = positive(get(d, "tok_s", "num", path, where), path, f"{where}, \"tok_s\"")
        self.bound_tok_s = positive(get(d, "bound_tok_s", "num", path, where), path, f"{where}, \"bound_tok_s\"")
        self.gbs = get(d, "gbs", "num", path, where)
        self.pct_ceiling = get(d, "pct_ceiling", "num", path, where)
        self.wait_share = get(d, "wait_share", "num", path, where)
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
        self.threads = get(d, "threads", "int", path, "")
        self.batch = get(d, "batch", "int", path, "")
        self.memory = get(d, "memory", "str", path, "")
        self.tokens = get(d, "tokens", "int", path, "")
        self.ceiling_gbs = get(d, "ceiling_gbs", "num", path, "")
        self.weight_bytes_per_token = get(d, "weight_bytes_per_token", "int", path, "")
        ov = get(d, "timing_overhead", "dict", path, "")
        self.overhead_pct = get(ov, "overhead_pct", "num", path, "timing_overhead")
        self.straggler = d.get("straggler")
        if self.straggler is not None:
            check(self.straggler, "dict", path, "straggler")
            get(self.straggler, "thread", "int", path, "straggler")
            get(self.straggler, "us", "num", path, "straggler")
        runs = get(d, "runs", "list", path, "")
        if not runs:
            _fail(path, "\"runs\" is empty")
        self.runs = [DispatchRun(r, path, f"runs[{i}]") for i, r in enumerate(runs)]
