#!/usr/bin/env python3
"""Writes a small synthetic run folder in the shapes `ciot suite` writes (context, bw, compute, bench.json
schema 3 with every repetition's paired probe sample and ratio and its roof, replay with a probe sample per
token, summary), for the plot tests. The figures are drawn from a seeded generator: plausible, not measured.
One case has a repetition above 100% of its paired probe, one gemm case a repetition above its paired compute
sample, a lookup gemm has no compute roof and a batch-1 gemm sits under the bw roof; one replay token and the
fused run's attn_output ops are above 100%; --cache-resident makes the weight region (and so every case)
cache-resident.

usage: make_run.py DIR [--host NAME] [--commit HASH] [--seed N] [--threads 1,2,4] [--no-replay] [--quick]
                       [--cache-resident] [--replay-warm] [--whole-token]"""
import argparse
import json
import os
import random
import statistics

BITS = {"pq2_0": 2.125, "t2x4": 2.125, "t2p": 2.125, "ptq1_0": 1.75, "tl2": 2.125}
GEMV = [("pq2_0_gemv_ref", 0.02), ("pq2_0_gemv_stock_avx2", 0.35), ("t2x4_gemv_avx2", 0.8), ("t2p_gemv_avx2", 0.85),
        ("ptq1_0_gemv_avx2", 0.6)]
# gemm kernels: share of their roof (the lower of bw and compute), their family (None: lookup), batches
GEMM = [("t2x4_gemm_avx2", 0.6, "avx2", (4, 64)), ("t2p_gemm_avx2", 0.7, "avx2", (4, 64)),
        ("tl2_gemm_avx2", 1.2, None, (4, 64)), ("t2p_gemm_avxvnni", 0.8, "avxvnni", (1,))]
COMPUTE = [("avx2", "vpmaddubsw + vpmaddwd + vpaddd ymm", 40.0), ("avxvnni", "vpdpbusd ymm (VEX)", 80.0)]
INSTRUCTION = {f: ins for f, ins, _ in COMPUTE}
PER_CORE = {f: g for f, _, g in COMPUTE}


RATIO_FLAG = "probe slower than the kernel: foreign load, or data in cache"
COMPUTE_FLAG = ("kernel above the compute probe of its family: fewer instructions per MAC than the probe chain, or a "
                "foreign load")
CACHE_FLAG = "cache-resident: working set below 4 x LLC"
LLC = 33554432
# the case that gets one repetition above 100% of its paired probe: that sample met a foreign load
FOREIGN = ("pq2_0_gemv_stock_avx2", 1, "persistent")
# the replay's timing overhead per pair (timed / untimed - 1, %): a spread around zero, within noise
OVERHEAD_PAIRS = [0.8, -0.4, 1.2, 0.3, -0.1, 0.9, 0.5, 0.2]
# the gemm case whose compute sample met a foreign load once: that repetition is above its compute roof
FOREIGN_COMPUTE = ("t2x4_gemm_avx2", 4, 2)


def spread(rng, centre, n, rel=0.06):
    return [centre * (1 + rng.uniform(-rel, rel)) for _ in range(n)]


def stats3(vals):
    return min(vals), statistics.median(vals), max(vals)


def context(a):
    return {"host": a.host, "cpu": "Synthetic CPU 9000", "features": "avx2,fma,avxvnni",
            "features_detected": "avx2,fma,avxvnni", "os": "Linux 6.1 x86_64", "governor": "performance",
            "compiler": a.compiler, "build_type": "Release", "flags": "-O3 -DNDEBUG -ffp-contract=off",
            "commit": a.commit, "dirty": a.dirty, "date": a.date, "loadavg_before": "0.10 0.20 0.30",
            "loadavg_after": "0.40 0.30 0.30", "llc": {"bytes": LLC, "level": 3, "source": "hwloc: L3, 1 x 32.0 MiB"},
            "topology": {"cores": max(a.threads), "pus": max(a.threads), "packages": 1, "memory_bytes": 17179869184,
                         "caches": [{"level": 3, "bytes": 33554432, "count": 1, "type": "unified"}]},
            "quick": a.quick}


def bw_domains(rng, domains):
    """`ciot bw --place domains` rows: each (name, threads, PUs, read GB/s) alone, then all; and "domains"."""
    results, summary = [], []
    for name, threads, pus, gbs in domains:
        lo, med, hi = stats3(spread(rng, gbs, 5))
        results.append({"kernel": "read", "threads": threads, "traffic": "read (loads only)", "bytes_per_pass": 1 << 30,
                        "passes_per_rep": 2, "reps": 5, "prefetch_bytes": 4096, "min_gbs": round(lo, 3),
                        "median_gbs": round(med, 3), "max_gbs": round(hi, 3), "pinned": True, "domain": name,
                        "pus": pus})
        summary.append({"domain": name, "threads": threads, "pus": pus, "read_min_gbs": round(lo, 3),
                        "read_median_gbs": round(med, 3), "read_max_gbs": round(hi, 3)})
    return results, summary


def bw(a, rng, read_gbs):
    results = []
    for t in a.threads:
        for kind, traffic, scale in (("read", "read (loads only)", 1.0),
                                     ("write", "write (stores; + write-allocate reads not counted)", 0.6),
                                     ("copy", "copy (loads + stores; + write-allocate reads not counted)", 0.75)):
            lo, med, hi = stats3(spread(rng, read_gbs[t] * scale, 5))
            results.append({"kernel": kind, "threads": t, "traffic": traffic, "bytes_per_pass": 1 << 30,
                            "passes_per_rep": 2, "reps": 5, "prefetch_bytes": 4096, "min_gbs": round(lo, 3),
                            "median_gbs": round(med, 3), "max_gbs": round(hi, 3), "pinned": True})
    return {"probe": "bw", "schema": 2, "rate_unit": "GB/s = 1e9 bytes per second of declared traffic",
            "buffer_bytes": 1 << 30, "cache_resident": False, "huge_pages_requested": True, "huge_page_fraction": 1.0,
            "prefetch_bytes": 4096, "llc_bytes_total": LLC, "llc_level": 3, "cores": max(a.threads), "reps": 5,
            "impl": "avx2", "context": context(a), "results": results}


def with_domains(d, rng, domains):
    """bw.json d with the domain rows of bw_domains added (a run folder given a `--place domains` probe)."""
    results, summary = bw_domains(rng, domains)
    d["results"] += results
    d["place"], d["domains"] = "domains", summary
    return d


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


def spread_of(vals):
    return {"min": min(vals), "median": statistics.median(vals), "max": max(vals)}


def summary(reps, op, cache, family):
    """The case summary as ciot writes it: spreads of the unrounded values, rounded; the roof; the flags."""
    out = {}
    for key, src, nd in (("gweights_s", "gw", 3), ("kernel_gbs", "k", 3), ("gmacs_s", "gw", 3), ("probe_gbs", "p", 3),
                         ("ratio", "r", 4)):
        if key == "gmacs_s" and op != "gemm":
            continue
        out[key] = {s: round(v, nd) for s, v in spread_of([r[src] for r in reps]).items()}
    above = any(r["r"] > 1 for r in reps)
    out["ratio_above_1"] = above
    rounded = lambda src, nd: {s: round(v, nd) for s, v in spread_of([r[src] for r in reps]).items()}  # noqa: E731
    out["compute_gmacs"] = rounded("c", 3) if family else None
    out["bw_roof_gmacs"] = rounded("bw", 3)
    if op == "gemv":
        bound = "bw"
    elif family is None:
        bound = None
    else:
        bound = ("compute" if statistics.median(r["c"] for r in reps) < statistics.median(r["bw"] for r in reps)
                 else "bw")
    out["bound"] = bound
    out["bound_mixed"] = any(r["bound"] != bound for r in reps)
    out["ratio_to_bound"] = rounded("rb", 4) if bound else None
    over = any(r["bound"] == "compute" and r["rb"] > 1 for r in reps)
    out["above_compute_roof"] = over
    out["flags"] = (["ratio_above_1"] if above else []) + (["above_compute_roof"] if over else []) + \
        (["cache_resident"] if cache else [])
    return out


def roof_of(op, family, bw, compute, gw, ratio):
    """The repetition's bound kind, bound and ratio to it (harness/measure/roof.c)."""
    if op == "gemm" and family is None:
        return None, None, None
    if op == "gemm" and compute < bw:
        return "compute", compute, gw / compute
    return "bw", bw, ratio


def bench(a, rng, ceiling):
    """bench.json, schema 3: every repetition a kernel sample, its paired probe sample, and for a gemm with a
    multiply family its paired compute sample (results/SCHEMA.md)."""
    region = (64 << 20) if a.cache_resident else (1 << 30)
    cache = region < 4 * LLC
    cases = []
    shapes = [(k, eff, None, 1, (8192, 8192)) for k, eff in GEMV] + \
        [(k, eff, fam, b, (4096, 5120)) for k, eff, fam, batches in GEMM for b in batches]
    for kernel, eff, family, batch, (rows, K) in shapes:
        op = "gemm" if "_gemm_" in kernel else "gemv"
        layout = kernel.split(f"_{op}_")[0]
        matrix_bytes = int(rows * K * BITS[layout] / 8)
        intensity = rows * K * batch / matrix_bytes
        for t in a.threads:
            for pool in ("persistent", "spawn") if op == "gemv" else ("persistent",):
                name = f"{kernel}/{rows}x{K}" + (f"/batch:{batch}" if op == "gemm" else "") + f"/threads:{t}/{pool}"
                centre = eff * (0.8 if pool == "spawn" else 1.0) * (t ** -0.1) * (1.6 if cache else 1.0)
                reps = []
                for i in range(5):
                    p = ceiling[t] * (1 + rng.uniform(-0.05, 0.05))
                    c = PER_CORE[family] * t * (1 + rng.uniform(-0.02, 0.02)) if family else None
                    if op == "gemv":
                        k = p * centre * (1 + rng.uniform(-0.06, 0.06))
                        gw = k * 1e9 / matrix_bytes * rows * K * batch / 1e9
                    else:   # a share of its roof; a lookup gemm beats the avx2 multiply roof
                        roof = min(p * intensity, c) if family else PER_CORE["avx2"] * t
                        gw = roof * centre * (1 + rng.uniform(-0.06, 0.06))
                        k = gw / intensity
                    if (kernel, t, pool) == FOREIGN and i == 3:
                        p = k / 1.3   # the probe sample met a foreign load: this repetition reads 130%
                    if (kernel, batch, t) == FOREIGN_COMPUTE and i == 2:
                        c = gw / 1.25   # the compute sample met a foreign load: 125% of its compute roof
                    bw = p * intensity
                    bound, bound_gmacs, rb = roof_of(op, family, bw, c, gw, k / p)
                    reps.append({"gw": gw, "k": k, "p": p, "r": k / p, "first": i % 2 == 0, "c": c, "bw": bw,
                                 "bound": bound, "bg": bound_gmacs, "rb": rb})
                r3 = lambda v: None if v is None else round(v, 3)   # noqa: E731
                r4 = lambda v: None if v is None else round(v, 4)   # noqa: E731
                case = {"name": name, "kernel": kernel, "layout": layout, "source": layout, "op": op, "tensor": None,
                        "rows": rows, "K": K, "batch": batch, "threads": t, "pool": pool,
                        "pinning": "one thread per core (hwloc)", "priority": "default (not raised)",
                        "bits_per_weight": BITS[layout], "matrix_bytes": matrix_bytes, "copies": 4, "calls_per_rep": 3,
                        "cache_resident": cache, "intensity": intensity, "compute_family": family,
                        "compute_instruction": INSTRUCTION.get(family),
                        "no_compute_roof": "lookup: no multiplies" if op == "gemm" and not family else None,
                        "repetitions": [{"seconds": round(3 * rows * K * batch / (r["gw"] * 1e9), 9),
                                         "gweights_s": round(r["gw"], 3), "kernel_gbs": round(r["k"], 3),
                                         "probe_gbs": round(r["p"], 3), "ratio": round(r["r"], 4),
                                         "probe_first": r["first"], "ratio_above_1": r["r"] > 1,
                                         "compute_gmacs": r3(r["c"]), "bw_roof_gmacs": round(r["bw"], 3),
                                         "bound": r["bound"], "bound_gmacs": r3(r["bg"]),
                                         "ratio_to_bound": r4(r["rb"]),
                                         "above_compute_roof": r["bound"] == "compute" and r["rb"] > 1}
                                        for r in reps],
                        "summary": summary(reps, op, cache, family)}
                cases.append(case)
    buf = lambda n: {"bytes": n, "cache_resident": n < 4 * LLC, "huge_pages_requested": True,  # noqa: E731
                     "huge_page_fraction": 1.0, "first_touch": "the persistent pool of the most threads, static page split"}
    protocol = {"reps": 5, "rep_seconds": 0.2, "probe_seconds": 0.2, "compute_seconds": 0.02,
                "pairing": "each repetition: one read-probe sample and the kernel's calls on the same pool and thread "
                           "count; the probe goes first on even repetitions",
                "ratio": "kernel GB/s / probe GB/s of the same repetition", "cold_bytes_rule": 1 << 30,
                "prefetch": "on", "prefetch_bytes": 4096, "pages": "huge", "weights_source": "drawn bytes",
                "weights": buf(region), "probe": buf(1 << 30),
                "flags": {"ratio_above_1": RATIO_FLAG, "above_compute_roof": COMPUTE_FLAG, "cache_resident": CACHE_FLAG}}
    overhead = [{"threads": t, "pool": pool, "us_per_call": {"min": 1.0, "median": 1.5, "max": 3.0}}
                for t in a.threads for pool in ("persistent", "spawn")]
    ctx = dict(context(a), kernel_flags={k: "-O3 -DNDEBUG -ffp-contract=off -mavx2" for k, *_ in GEMV + GEMM})
    ctx.pop("quick")
    return {"bench": "ciot", "schema": 3, "units": "Gweights/s = rows x K x batch / s / 1e9; GB/s = packed weight "
            "bytes / s / 1e9; ratio = kernel GB/s / paired probe GB/s", "context": ctx, "protocol": protocol,
            "cases": cases, "pool_empty_job": overhead}


def replay(a, rng, ceiling):
    """replay.json: a probe sample per token; the fused dispatch has one token above its paired probe (its
    weights partly in cache) and its attn_output ops above the ceiling, so both flags appear, and not everywhere."""
    t = a.threads[-1]
    tokens = 8
    blocks = 4
    shapes = {"attn_qkv": (10240, 5120), "attn_gate": (6144, 5120), "ssm_out": (5120, 6144), "attn_q": (12288, 5120),
              "attn_k": (1024, 5120), "attn_v": (1024, 5120), "attn_output": (5120, 6144),
              "ffn_gate": (17408, 5120), "ffn_up": (17408, 5120), "ffn_down": (5120, 17408), "output": (248320, 5120)}
    bpw = BITS["t2x4"] / 8
    probe = [round(ceiling[t] * (1 + rng.uniform(-0.03, 0.03)), 4) for _ in range(tokens)]
    ceiling_gbs = statistics.median(probe)
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
            op_eff = 1.3 if dispatch == "fused" and name.endswith("attn_output") else eff   # read from cache
            work_us = nbytes / (ceiling_gbs * op_eff * 1e3)
            busy = spread(rng, work_us, t, 0.05)
            if name.endswith("ffn_down") and dispatch == "chunks":
                busy[-1] *= 1.6   # a straggler thread the profiler should show as the others' wait
            wall = max(busy) * (1.01 if op_eff < 1 else 0.8)
            threads = [{"busy_us": round(bu, 3), "wait_us": round(max(wall - bu, 0), 3), "start_us": 0.5,
                        "injected_us": 0.0} for bu in busy]
            pct = 100 * nbytes / wall / 1e3 / ceiling_gbs
            op_list.append({"name": name, "kind": name.rsplit(".", 1)[-1], "rows": rows, "K": K, "fused_ops": 1,
                            "bytes": nbytes, "lm_head": lm, "wall_us": round(wall, 3),
                            "gbs": round(nbytes / wall / 1e3, 4), "pct_ceiling": round(pct, 3),
                            "ratio_above_1": pct > 100, "threads": threads})
            total_us += wall
            busy_total += sum(busy)
            wait_total += sum(x["wait_us"] for x in threads)
        weight_bytes = sum(o["bytes"] for o in op_list)
        ms = spread(rng, total_us / 1e3, tokens, 0.03)
        if dispatch == "fused":
            ms[5] *= 0.75   # this token found part of its weights in cache: above its paired probe sample
        ratios = [weight_bytes / (m * 1e6) / p for m, p in zip(ms, probe)]
        lo, med, hi = stats3(ms)
        rlo, rmed, rhi = stats3(ratios)
        runs.append({"dispatch": dispatch, "ms_per_token": {"min": round(lo, 4), "median": round(med, 4),
                                                            "max": round(hi, 4)},
                     "tok_s": round(1e3 / med, 4), "bound_tok_s": round(ceiling_gbs * 1e9 / weight_bytes, 4),
                     "gbs": round(weight_bytes / med / 1e6, 4), "pct_ceiling": round(100 * rmed, 3),
                     "ceiling_gbs": ceiling_gbs, "ratio": {"min": round(rlo, 4), "median": round(rmed, 4),
                                                           "max": round(rhi, 4)},
                     "ratio_per_token": [round(r, 4) for r in ratios], "ratio_above_1": rhi > 1,
                     "wait_share": round(wait_total / (wait_total + busy_total), 5), "steps": len(op_list),
                     "ops": op_list, "slowest": [o["name"] for o in sorted(op_list, key=lambda o: o["gbs"])[:5]]})
    return {"context": context(a), "model": "Ternary Bonsai 2 27B (synthetic, 4 blocks)", "model_file": "synthetic.ops",
            "ops_replayed": len(runs[0]["ops"]), "ops_in_model": len(runs[0]["ops"]),
            "kernel": "t2x4_gemv_avx2", "layout": "t2x4", "threads": t, "pinned": True,
            "pinning": "one thread per core (hwloc)", "batch": 1, "chunk_tiles": 16,
            "memory": "ring", "memory_bytes": 1 << 31, "cold": a.replay_cold, "tokens": tokens, "warmup_tokens": 1,
            "ceiling_gbs": ceiling_gbs, "probe_gbs_per_token": probe,
            "pairing": "one read-probe sample per token round (every dispatch of that token), on the same pool",
            "ceiling_buffer_bytes": 1 << 30, "ceiling_buffer_cache_resident": False, "prefetch_bytes": 4096,
            "huge_page_fraction": {"weights": 1.0, "probe": 1.0},
            "flags": {"ratio_above_1": RATIO_FLAG,
                      "cold_false": "weights smaller than 4 x LLC plus the largest matvec: ops may hit the cache"},
            "weight_bytes_per_token": sum(o["bytes"] for o in runs[0]["ops"]),
            "timing_overhead": {"dispatch": "static", "method": "pairs side by side; per pair timed / untimed - 1",
                                "pairs": len(OVERHEAD_PAIRS), "pct_per_pair": OVERHEAD_PAIRS,
                                "overhead_pct": statistics.median(OVERHEAD_PAIRS), "min_pct": min(OVERHEAD_PAIRS),
                                "max_pct": max(OVERHEAD_PAIRS), "within_noise": True,
                                "on_ms_per_token": runs[1]["ms_per_token"]["median"] * 1.004,
                                "off_ms_per_token": runs[1]["ms_per_token"]["median"]},
            "straggler": {"thread": t - 1, "us": 850.5}, "runs": runs}


# a whole token's ops between the matvecs: (kind, part, microseconds at L = 0, microseconds per position)
TOKEN_OPS = {"rmsnorm": ("rest", 4.0, 0), "deltanet": ("deltanet", 380.0, 0), "attention": ("attention", 30.0, 0.0125),
             "rope": ("rest", 1.0, 0), "glu": ("rest", 6.0, 0), "add": ("rest", 2.0, 0),
             "state_copy": ("state_copies", 9000.0, 0), "embed": ("rest", 2.0, 0), "argmax": ("rest", 40.0, 0)}
CONTEXTS = (512, 4096, 32768)
# the probe each kind is paired with (profiles/README.md, "The rulers") and its rate against the read probe's
KIND_RULERS = {"deltanet": "update", "state_copy": "copy_nt"}
RULER_SPEEDS = {"update": 1.6, "copy_nt": 1.35}


def whole_token(a, rng, ceiling):
    """replay.json of a whole token: the synthetic matvec replay's static run at three contexts, with the ops
    between the matvecs where a block has them, each run's split and the attention/matvec crossover. At 4096
    one token is above its paired probe and the state copy above its copy ruler, so both flags appear, and
    not everywhere. DeltaNet and the state copy are paired with the update and copy_nt probes, sampled
    beside every token."""
    doc = replay(a, rng, ceiling)
    base = [r for r in doc["runs"] if r["dispatch"] == "static"][0]
    tokens, probe = doc["tokens"], doc["probe_gbs_per_token"]
    t = doc["threads"]
    samples = {"read": probe}
    for name, speed in RULER_SPEEDS.items():
        samples[name] = [round(p * speed * (1 + rng.uniform(-0.03, 0.03)), 4) for p in probe]
    median = {name: statistics.median(v) for name, v in samples.items()}

    def op(name, kind, L):
        part, us0, per = TOKEN_OPS[kind]
        ruler = KIND_RULERS.get(kind, "read")
        wall = (us0 + per * L) * (1 + rng.uniform(-0.04, 0.04))
        busy = spread(rng, wall * 0.9, t, 0.05)
        # at 4096 the state copy found its states partly in the LLC: above its ruler, flagged
        nbytes = int(wall * median[ruler] * (1.3 if kind == "state_copy" and L == 4096 else 0.8) * 1e3)
        pct = 100 * nbytes / wall / 1e3 / median[ruler]
        return {"name": name, "kind": kind, "op_kind": kind, "ruler": ruler, "rows": 0, "K": 0, "fused_ops": 1,
                "bytes": nbytes,
                "lm_head": False, "wall_us": round(wall, 3), "gbs": round(nbytes / wall / 1e3, 4),
                "pct_ceiling": round(pct, 3), "ratio_above_1": pct > 100,
                "threads": [{"busy_us": round(b, 3), "wait_us": round(max(wall - b, 0), 3), "start_us": 0.5,
                             "injected_us": 0.0} for b in busy]}, part

    runs, fit = [], []
    for L in CONTEXTS:
        ops = [op("token_embd", "embed", L)[0]]
        parts = {"matvecs": 0.0, "deltanet": 0.0, "attention": 0.0, "state_copies": 0.0, "rest": 0.0}
        parts["rest"] += ops[0]["wall_us"]
        for m in base["ops"]:
            block = m["name"].split(".")[1] if m["name"].startswith("blk.") else None
            mv = dict(m, op_kind="matvec", ruler="read")
            if m["kind"] in ("attn_qkv", "attn_q"):
                o, part = op(f"blk.{block}.attn_norm", "rmsnorm", L)
                ops.append(o), parts.__setitem__(part, parts[part] + o["wall_us"])
            ops.append(mv)
            parts["matvecs"] += m["wall_us"]
            after = {"attn_gate": ["deltanet", "rmsnorm", "glu"], "attn_v": ["rmsnorm", "rope", "attention"],
                     "ffn_up": ["glu"], "ffn_down": ["add"], "attn_output": ["add"], "ssm_out": ["add"],
                     "output": ["argmax", "state_copy"]}.get(m["kind"], [])
            for kind in after:
                o, part = op(f"blk.{block}.{kind}" if block else kind, kind, L)
                ops.append(o)
                parts[part] += o["wall_us"]
        total_ms = sum(o["wall_us"] for o in ops) / 1e3 / 0.995   # the ops' sum: 99.5% of the token
        nbytes = sum(o["bytes"] for o in ops)
        by_ruler = {name: sum(o["bytes"] for o in ops if o["ruler"] == name) for name in samples}
        ms = spread(rng, total_ms, tokens, 0.03)
        if L == 4096:
            ms[5] *= 0.75   # this token found part of its bytes in cache: above its paired probe samples
        # each token: the time its bytes take at its own samples of their rulers, over its time
        ratios = [sum(b / (samples[name][k] * 1e9) for name, b in by_ruler.items()) / (x / 1e3)
                  for k, x in enumerate(ms)]
        bound_s = sum(b / (median[name] * 1e9) for name, b in by_ruler.items())
        lo, med, hi = stats3(ms)
        rlo, rmed, rhi = stats3(ratios)
        split = {k: {"ms_min": round(v / 1e3 * 0.98, 5), "ms_median": round(v / 1e3, 5), "ms_max": round(v / 1e3 * 1.03, 5),
                     "pct_token": round(100 * v / 1e3 / med, 3), "bytes": 0} for k, v in parts.items()}
        fit.append((L, parts["attention"] / 1e3, parts["matvecs"] / 1e3))
        runs.append(dict(base, context=L, bytes_per_token=nbytes,
                         ops_sum_over_wall={"min": 0.993, "median": 0.995, "max": 0.997}, split=split,
                         ms_per_token={"min": round(lo, 4), "median": round(med, 4), "max": round(hi, 4)},
                         tok_s=round(1e3 / med, 4), bound_tok_s=round(1 / bound_s, 4),
                         bound_gbs=round(nbytes / bound_s / 1e9, 4),
                         gbs=round(nbytes / med / 1e6, 4), pct_ceiling=round(100 * rmed, 3),
                         ratio={"min": round(rlo, 4), "median": round(rmed, 4), "max": round(rhi, 4)},
                         ratio_per_token=[round(r, 4) for r in ratios], ratio_above_1=rhi > 1, steps=len(ops),
                         ops=ops, slowest=[o["name"] for o in sorted(ops, key=lambda o: o["gbs"])[:5]]))
    n = len(fit)
    sx, sy = sum(f[0] for f in fit), sum(f[1] for f in fit)
    slope = (n * sum(f[0] * f[1] for f in fit) - sx * sy) / (n * sum(f[0] ** 2 for f in fit) - sx * sx)
    intercept = (sy - slope * sx) / n
    matvecs = statistics.median(f[2] for f in fit)
    doc.update(rulers=[{"ruler": name, "traffic": name, "for": name, "gbs_per_token": v,
                        "gbs": {"min": min(v), "median": median[name], "max": max(v)}} for name, v in samples.items()])
    doc.update(runs=runs, whole_token=True, token_ops="avx2", contexts=list(CONTEXTS), straggler=None,
               crossover={"dispatch": "static", "points": n, "attention_intercept_ms": round(intercept, 5),
                          "attention_ms_per_position": round(slope, 9), "matvecs_ms": round(matvecs, 4),
                          "context": round((matvecs - intercept) / slope, 1)})
    return doc


def write(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")


def make(out, host="synth", commit="0123456789ab", seed=1, threads=(1, 2, 4), with_replay=True, quick=False,
         whole=False,
         compiler="Clang 14.0.6", dirty=False, date="2026-01-02T03:04:05Z", speed=1.0, cache_resident=False,
         replay_cold=True, domains=None):
    """The run folder; cache_resident: a 64 MiB weight region (below 4 x LLC, every case flagged);
    replay_cold=False: the replay's weights may sit in the cache (flagged); domains: [(name, threads, PUs,
    read GB/s)] adds `ciot bw --place domains` rows to bw.json (the scaling plot's domain panel)."""
    a = argparse.Namespace(host=host, commit=commit, threads=list(threads), quick=quick, compiler=compiler,
                           dirty=dirty, date=date, cache_resident=cache_resident, replay_cold=replay_cold)
    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    read_gbs = {t: speed * 20 * min(t, 3) ** 0.7 for t in a.threads}
    write(os.path.join(out, "context.json"), context(a))
    probe = bw(a, rng, read_gbs)
    write(os.path.join(out, "bw.json"), with_domains(probe, rng, domains) if domains else probe)
    write(os.path.join(out, "compute.json"), compute(a, rng))
    write(os.path.join(out, "bench.json"), bench(a, rng, read_gbs))
    if with_replay:
        write(os.path.join(out, "replay.json"), (whole_token if whole else replay)(a, rng, read_gbs))
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
    p.add_argument("--cache-resident", action="store_true")
    p.add_argument("--replay-warm", action="store_true", help="the replay's weights not cold (cache-resident)")
    p.add_argument("--whole-token", action="store_true", help="a whole-token replay at three contexts")
    x = p.parse_args()
    make(x.dir, x.host, x.commit, x.seed, [int(t) for t in x.threads.split(",")], not x.no_replay, x.quick,
         whole=x.whole_token, cache_resident=x.cache_resident, replay_cold=not x.replay_warm)
