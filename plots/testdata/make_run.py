#!/usr/bin/env python3
"""Writes a small synthetic run folder in the shapes `ciot suite` writes (context, bw, compute, bench as
Google Benchmark JSON with repetitions and aggregates, replay, summary), for the plot tests.
The figures are drawn from a seeded generator: plausible, not measured.

usage: make_run.py DIR [--host NAME] [--commit HASH] [--seed N] [--threads 1,2,4] [--no-replay] [--quick]"""
import argparse
import json
import os
import random
import statistics

BITS = {"pq2_0": 2.125, "t2x4": 2.125, "t2p": 2.125, "ptq1_0": 1.75}
GEMV = [("pq2_0_gemv_ref", 0.02), ("pq2_0_gemv_stock_avx2", 0.35), ("t2x4_gemv_avx2", 0.8), ("t2p_gemv_avx2", 0.85),
        ("ptq1_0_gemv_avx2", 0.6)]
GEMM = [("t2x4_gemm_avx2", 0.25), ("t2p_gemm_avx2", 0.3)]
COMPUTE = [("avx2", "vpmaddubsw + vpmaddwd + vpaddd ymm", 40.0), ("avxvnni", "vpdpbusd ymm (VEX)", 80.0)]


def spread(rng, centre, n, rel=0.06):
    return [centre * (1 + rng.uniform(-rel, rel)) for _ in range(n)]


def stats3(vals):
    return min(vals), statistics.median(vals), max(vals)


def context(a):
    return {"host": a.host, "cpu": "Synthetic CPU 9000", "features": "avx2,fma,avxvnni",
            "features_detected": "avx2,fma,avxvnni", "os": "Linux 6.1 x86_64", "governor": "performance",
            "compiler": a.compiler, "flags": "-O3", "commit": a.commit, "dirty": a.dirty, "date": a.date,
            "topology": {"cores": max(a.threads), "pus": max(a.threads), "packages": 1, "memory_bytes": 17179869184,
                         "caches": [{"level": 3, "bytes": 33554432, "count": 1, "type": "unified"}]},
            "quick": a.quick}


def bw(a, rng, read_gbs):
    results = []
    for t in a.threads:
        for kind, traffic, scale in (("read", "read (loads only)", 1.0),
                                     ("write", "write (stores; + write-allocate reads not counted)", 0.6),
                                     ("copy", "copy (loads + stores; + write-allocate reads not counted)", 0.75)):
            lo, med, hi = stats3(spread(rng, read_gbs[t] * scale, 5))
            results.append({"kernel": kind, "threads": t, "traffic": traffic, "bytes_per_pass": 1 << 30,
                            "passes_per_rep": 2, "reps": 5, "min_gbs": round(lo, 3), "median_gbs": round(med, 3),
                            "max_gbs": round(hi, 3), "pinned": True})
    return {"probe": "bw", "schema": 1, "rate_unit": "GB/s = 1e9 bytes per second of declared traffic",
            "buffer_bytes": 1 << 30, "cores": max(a.threads), "reps": 5, "impl": "avx2", "results": results}


def compute(a, rng):
    results = []
    for t in a.threads:
        for fam, ins, per_core in COMPUTE:
            lo, med, hi = stats3(spread(rng, per_core * t, 5, 0.02))
            results.append({"family": fam, "instruction": ins, "threads": t, "macs_per_iter": 256, "reps": 5,
                            "min_gmacs": round(lo, 3), "median_gmacs": round(med, 3), "max_gmacs": round(hi, 3),
                            "min_gops": round(2 * lo, 3), "median_gops": round(2 * med, 3),
                            "max_gops": round(2 * hi, 3), "pinned": True})
    return {"probe": "compute", "schema": 1, "cores": max(a.threads), "reps": 5, "results": results}


def bench_entries(name, reps, counters_per_rep, label):
    base = {"family_index": 0, "per_family_instance_index": 0, "run_name": name, "repetitions": len(reps),
            "threads": 1, "iterations": 10, "time_unit": "ms", "label": label}
    out = []
    for i, c in enumerate(counters_per_rep):
        out.append(dict(base, name=name, run_type="iteration", repetition_index=i, real_time=reps[i], cpu_time=reps[i],
                        **c))
    keys = counters_per_rep[0].keys()
    aggs = {"mean": statistics.mean, "median": statistics.median, "stddev": statistics.stdev,
            "cv": lambda v: 100 * statistics.stdev(v) / statistics.mean(v), "min": min, "max": max}
    for agg, f in aggs.items():
        vals = {k: f([c[k] for c in counters_per_rep]) for k in keys}
        out.append(dict(base, name=f"{name}_{agg}", run_type="aggregate", aggregate_name=agg,
                        aggregate_unit="percentage" if agg == "cv" else "time", real_time=f(reps),
                        cpu_time=f(reps), **vals))
    return out


def bench(a, rng, ceiling):
    entries = []
    cases = [(k, eff, 1, "8192x8192") for k, eff in GEMV] + [(k, eff, b, "4096x5120") for k, eff in GEMM for b in (4, 64)]
    for kernel, eff, batch, shape in cases:
        op = "gemm" if "_gemm_" in kernel else "gemv"
        bpw = BITS[kernel.split(f"_{op}_")[0]] / 8
        for t in a.threads:
            for pool in ("persistent", "spawn") if op == "gemv" else ("persistent",):
                name = f"{kernel}/{shape}" + (f"/batch:{batch}" if op == "gemm" else "") + f"/threads:{t}/{pool}/manual_time"
                gbs_centre = ceiling[t] * eff * (0.8 if pool == "spawn" else 1.0) * (t ** -0.1)
                reps, counters = [], []
                for gbs in spread(rng, gbs_centre, 5):
                    gw = gbs / bpw * batch
                    c = {"GB/s": gbs, "Gweights/s": gw, "ceiling_GB/s": ceiling[t], "pct_ceiling": 100 * gbs / ceiling[t]}
                    if op == "gemm":
                        c["GMAC/s"] = gw
                    counters.append(c)
                    reps.append(1.0 / gw)
                entries += bench_entries(name, reps, counters, f"{pool} pool, 4 rotating weight copies")
    # one benchmark that failed: the plots must leave it out, not fall over
    entries.append({"name": f"t2p_gemv_avx2/8192x8192/threads:{a.threads[-1]}/persistent/manual_time",
                    "run_name": "failed_case", "run_type": "iteration", "error_occurred": True,
                    "error_message": "the weight region does not fit in memory (lower --working-set)"})
    ctx = {"date": a.date, "host_name": a.host, "executable": "ciot bench", "num_cpus": max(a.threads),
           "ciot_host": a.host, "ciot_cpu": "Synthetic CPU 9000", "ciot_commit": a.commit, "ciot_date": a.date}
    return {"context": ctx, "benchmarks": entries}


def replay(a, rng, ceiling):
    t = a.threads[-1]
    blocks = 4
    shapes = {"attn_qkv": (10240, 5120), "attn_gate": (6144, 5120), "ssm_out": (5120, 6144), "attn_q": (12288, 5120),
              "attn_k": (1024, 5120), "attn_v": (1024, 5120), "attn_output": (5120, 6144),
              "ffn_gate": (17408, 5120), "ffn_up": (17408, 5120), "ffn_down": (5120, 17408), "output": (248320, 5120)}
    bpw = BITS["t2x4"] / 8
    runs = []
    for dispatch, eff in (("chunks", 0.78), ("static", 0.83), ("fused", 0.88)):
        ops = []
        for b in range(blocks):
            names = ["attn_q", "attn_k", "attn_v", "attn_output"] if b % 4 == 3 else ["attn_qkv", "attn_gate", "ssm_out"]
            names += ["ffn_gate", "ffn_up", "ffn_down"]
            if dispatch == "fused":   # gate+up and q+k+v run as one op
                names = [n for n in names if n not in ("ffn_up", "attn_k", "attn_v")]
            for n in names:
                rows, K = shapes[n]
                if dispatch == "fused" and n == "ffn_gate":
                    n, rows = "ffn_gate_up", 2 * rows
                if dispatch == "fused" and n == "attn_q":
                    n, rows = "attn_qkv", rows + 2048
                ops.append((f"blk.{b}.{n}", rows, K, False))
        ops.append(("output", *shapes["output"], True))
        op_list, total_us, wait_total, busy_total = [], 0.0, 0.0, 0.0
        for name, rows, K, lm in ops:
            nbytes = int(rows * K * bpw)
            work_us = nbytes / (ceiling[t] * eff * 1e3)
            busy = spread(rng, work_us, t, 0.05)
            if name.endswith("ffn_down") and dispatch == "chunks":
                busy[-1] *= 1.6   # a straggler thread the profiler should show as the others' wait
            wall = max(busy) * 1.01
            threads = [{"busy_us": round(bu, 3), "wait_us": round(wall - bu, 3)} for bu in busy]
            op_list.append({"name": name, "rows": rows, "K": K, "bytes": nbytes, "lm_head": lm, "wall_us": round(wall, 3),
                            "gbs": round(nbytes / wall / 1e3, 3), "pct_ceiling": round(100 * nbytes / wall / 1e3 / ceiling[t], 3),
                            "threads": threads})
            total_us += wall
            busy_total += sum(busy)
            wait_total += sum(x["wait_us"] for x in threads)
        ms = spread(rng, total_us / 1e3, 5, 0.03)
        lo, med, hi = stats3(ms)
        weight_bytes = sum(o["bytes"] for o in op_list)
        runs.append({"dispatch": dispatch, "ms_per_token": {"min": lo, "median": med, "max": hi},
                     "tok_s": 1e3 / med, "bound_tok_s": ceiling[t] * 1e9 / weight_bytes,
                     "gbs": weight_bytes / med / 1e6, "pct_ceiling": 100 * weight_bytes / med / 1e6 / ceiling[t],
                     "wait_share": wait_total / (wait_total + busy_total), "ops": op_list,
                     "slowest": [o["name"] for o in sorted(op_list, key=lambda o: -o["wall_us"])[:5]]})
    return {"context": context(a), "model": "Ternary Bonsai 2 27B (synthetic, 4 blocks)", "model_file": "synthetic.gguf",
            "kernel": "t2x4_gemv_avx2", "threads": t, "batch": 1, "memory": "ring", "tokens": 8,
            "ceiling_gbs": ceiling[t], "weight_bytes_per_token": sum(o["bytes"] for o in runs[0]["ops"]),
            "timing_overhead": {"on_ms_per_token": runs[1]["ms_per_token"]["median"] * 1.01,
                                "off_ms_per_token": runs[1]["ms_per_token"]["median"], "overhead_pct": 1.0},
            "straggler": {"thread": t - 1, "us": 850.5}, "runs": runs}


def write(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def make(out, host="synth", commit="0123456789ab", seed=1, threads=(1, 2, 4), with_replay=True, quick=False,
         compiler="Clang 14.0.6", dirty=False, date="2026-01-02T03:04:05Z", speed=1.0):
    a = argparse.Namespace(host=host, commit=commit, threads=list(threads), quick=quick, compiler=compiler,
                           dirty=dirty, date=date)
    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    read_gbs = {t: speed * 20 * min(t, 3) ** 0.7 for t in a.threads}
    write(os.path.join(out, "context.json"), context(a))
    write(os.path.join(out, "bw.json"), bw(a, rng, read_gbs))
    write(os.path.join(out, "compute.json"), compute(a, rng))
    write(os.path.join(out, "bench.json"), bench(a, rng, read_gbs))
    if with_replay:
        write(os.path.join(out, "replay.json"), replay(a, rng, read_gbs))
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(f"## ciot suite: {host}, synthetic\n")
    return out


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir")
    p.add_argument("--host", default="synth")
    p.add_argument("--commit", default="0123456789ab")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", default="1,2,4")
    p.add_argument("--no-replay", action="store_true")
    p.add_argument("--quick", action="store_true")
    x = p.parse_args()
    make(x.dir, x.host, x.commit, x.seed, [int(t) for t in x.threads.split(",")], not x.no_replay, x.quick)
