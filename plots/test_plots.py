#!/usr/bin/env python3
"""Tests of plots/: every script on synthetic run folders (testdata/make_run.py) and on the reference runs
(results/*/ with a schema-2 or -3 bench.json, or the run folders given as arguments). The values each script
says it plotted (--table) are compared with the raw JSON, read here independently of runfolder.py: the
paired probe medians, the per-repetition ratios' median/min/max, and the flags, which must be where the raw
data has them and nowhere else. Broken inputs must give one line naming the file and a non-zero exit,
never a traceback.

usage: test_plots.py [RUN_DIR...]; ends with "N passed, M failed" and exits non-zero on a failure."""
import contextlib
import csv
import glob
import io
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "testdata"))
sys.path.insert(0, HERE)
import make_run  # noqa: E402

PER_RUN = {"roofline": "roofline.py", "layouts": "layouts.py", "scaling": "scaling.py", "profile": "op_profile.py",
           "context": "context.py"}
passed, failed = 0, 0
big_runs = 0   # runs with more series than a plot draws: the reference run of an AVX-512 machine is one


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        if isinstance(detail, list) and len(detail) > 6:
            detail = detail[:6] + [f"... {len(detail) - 6} more"]
        print(f"FAIL {name}" + (f": {detail}" if detail != "" else ""))
    return ok


def run(script, *args):
    p = subprocess.run([sys.executable, os.path.join(HERE, script), *args], capture_output=True, text=True,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def close(a, b):
    return isinstance(a, (int, float)) and isinstance(b, (int, float)) and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def load_table(path):
    with open(path) as f:
        return json.load(f)


# --- the raw JSON, read without runfolder.py ---

def raw_json(run_dir, name):
    with open(os.path.join(run_dir, name)) as f:
        return json.load(f)


def raw_bench(run_dir):
    """bench.json's cases (schema 3, or 2), each with "_flags": the flags its raw data carries, and "_roof":
    the per-repetition ratios to its roof (schema 2: a gemv's read ratio, a gemm none)."""
    d = raw_json(run_dir, "bench.json")
    probe_cache = d["protocol"]["probe"]["cache_resident"]
    for c in d["cases"]:
        reps = c["repetitions"]
        c["_flags"] = ([f for f, on in (("ratio_above_1", any(r["ratio_above_1"] for r in reps)),
                                        ("above_compute_roof", any(r.get("above_compute_roof") for r in reps)),
                                        ("cache_resident", c["cache_resident"] or probe_cache),
                                        ("low_outlier", any(r.get("low_outlier") for r in reps))) if on])
        if d["schema"] == 2:
            c["_roof"] = [r["ratio"] for r in reps] if c["op"] == "gemv" else []
        else:
            c["_roof"] = [r["ratio_to_bound"] for r in reps if r["ratio_to_bound"] is not None]
    return d["cases"]


def raw_roof(case):
    """min, median, max of the case's ratios to its roof, or None when it has none."""
    v = case["_roof"]
    return (min(v), statistics.median(v), max(v)) if v else None


def raw_flag_texts(run_dir):
    return raw_json(run_dir, "bench.json")["protocol"]["flags"]


def raw_stats(case, key):
    """min, median, max of a repetition field."""
    vals = [r[key] for r in case["repetitions"]]
    return min(vals), statistics.median(vals), max(vals)


def shape_of(c):
    return (f"{c['tensor']} " if c.get("tensor") else "") + f"{c['rows']}x{c['K']}"


def find_case(cases, **want):
    hits = [c for c in cases if all((shape_of(c) if k == "shape" else c[k]) == v for k, v in want.items())]
    return hits[0] if len(hits) == 1 else None


def raw_paired_probe(cases, threads):
    """Every paired probe sample of the persistent-pool cases at this thread count."""
    return [r["probe_gbs"] for c in cases if c["pool"] == "persistent" and c["threads"] == threads
            for r in c["repetitions"]]


def row_flags(r):
    return [f for f in r["flags"].split(",") if f]


def same3(got, want):
    return all(close(a, b) for a, b in zip(got, want))


# --- checks of each script's table against the raw JSON ---

def check_pictures(label, base, context):
    png, svg = base + ".png", base + ".svg"
    ok = os.path.isfile(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    check(f"{label}: PNG written", ok, png)
    text = open(svg).read() if os.path.isfile(svg) else ""
    check(f"{label}: SVG written", "<svg" in text, svg)
    if context:
        missing = [v for v in (context["host"], context["commit"], context["date"]) if v not in text]
        check(f"{label}: title names machine, date and commit", not missing, f"not in the SVG: {missing}")
    return text


def check_flag_legend(label, svg, rows, texts):
    """Each flag's text is in the picture when a plotted row carries the flag, and only then."""
    have = {f for r in rows for f in row_flags(r)}
    bad = [f"{f} {'missing' if f in have else 'shown without a flagged row'}" for f, t in texts.items()
           if (escape(t) in svg) != (f in have)]
    check(f"{label}: the legend explains exactly the flags drawn ({', '.join(sorted(have)) or 'none'})", not bad, bad)


def escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace("'", "&#39;")


def check_flags(label, rows, want_of, expect):
    """Every row's flags are exactly those of its raw data (want_of(row) -> list); expect: 'mixed' (some rows
    flagged, some not, so a check that flags everything or nothing fails), 'all' or None."""
    bad = [r.get("kernel") or r.get("series") or r.get("name") or r.get("dispatch")
           for r in rows if row_flags(r) != want_of(r)]
    check(f"{label}: flags where the raw data has them, and nowhere else", not bad, bad)
    flagged = sum(1 for r in rows if row_flags(r))
    if expect == "mixed":
        check(f"{label}: flags exercised ({flagged} of {len(rows)} flagged)", 0 < flagged < len(rows))
    elif expect == "all":
        check(f"{label}: every row flagged (a cache-resident run)", flagged == len(rows), f"{flagged} of {len(rows)}")


def check_roofline(run_dir, rows, expect):
    cases = raw_bench(run_dir)
    comp = raw_json(run_dir, "compute.json")
    bad = []
    points = [r for r in rows if r["what"] == "point"]
    for r in points:
        c = find_case(cases, kernel=r["kernel"], shape=r["shape"], batch=r["batch"], threads=r["threads"], pool="persistent")
        gw, gbs = raw_stats(c, "gweights_s")[1], raw_stats(c, "kernel_gbs")[1]
        if not (close(r["gops"], 2 * gw) and close(r["ops_per_byte"], 2 * gw / gbs)):
            bad.append(r["kernel"])
    n_persistent = sum(1 for c in cases if c["pool"] == "persistent")
    check("roofline: one point per kernel x shape x batch x threads (persistent)", len(points) == n_persistent,
          f"{len(points)} points, {n_persistent} cases")
    check("roofline: points = 2 x median Gweights/s and 2 x Gweights/s / GB/s", not bad, bad)
    check_flags("roofline", points, lambda r: find_case(cases, kernel=r["kernel"], shape=r["shape"], batch=r["batch"],
                                                        threads=r["threads"], pool="persistent")["_flags"], expect)
    bad = []
    threads = sorted({c["threads"] for c in cases if c["pool"] == "persistent"})
    roofs = [r for r in rows if r["what"] == "read_roof"]
    if sorted(r["threads"] for r in roofs) != threads:
        bad.append(f"read roofs at {[r['threads'] for r in roofs]}, persistent cases at {threads}")
    for r in rows:
        if r["what"] == "read_roof":
            raw = raw_paired_probe(cases, r["threads"])
            if not (close(r["read_gb_s"], statistics.median(raw)) and r["probe_samples"] == len(raw)):
                bad.append(f"read {r['threads']}T")
        if r["what"] == "compute_roof":
            raw = max(x["median_gops"] for x in comp["results"] if x["threads"] == r["threads"])
            bad += [] if close(raw, r["compute_gops"]) else [f"compute {r['threads']}T"]
    check("roofline: read roof = median of every paired probe sample of the persistent cases per thread count; "
          "compute roof = best compute.json median", not bad, bad)
    bad = []
    paired = [r for r in rows if r["what"] == "paired_compute_roof"]
    want = {(c["compute_family"], c["threads"]) for c in cases if c.get("compute_family") and c["pool"] == "persistent"}
    if {(r["family"], r["threads"]) for r in paired} != want:
        bad.append(f"paired compute roofs for {sorted((r['family'], r['threads']) for r in paired)}, cases {sorted(want)}")
    for r in paired:
        raw = [x["compute_gmacs"] for c in cases if c.get("compute_family") == r["family"] and c["pool"] == "persistent"
               and c["threads"] == r["threads"] for x in c["repetitions"]]
        if not (close(r["compute_gops"], 2 * statistics.median(raw)) and r["samples"] == len(raw)):
            bad.append(f"{r['family']} {r['threads']}T")
        # each paired roof names its instruction sequence (compute.json's row) and the kernels it judges
        instr = {x["instruction"] for x in comp["results"] if x["family"] == r["family"]}
        judged = {c["kernel"] for c in cases if c.get("compute_family") == r["family"] and c["pool"] == "persistent"
                  and c["threads"] == r["threads"]}
        if (r["instruction"] not in instr and (instr or r["instruction"])) or set(r["kernels"].split()) != judged:
            bad.append(f"{r['family']} {r['threads']}T names '{r['instruction']}' for {r['kernels']}")
    for r in points:
        c = find_case(cases, kernel=r["kernel"], shape=r["shape"], batch=r["batch"], threads=r["threads"], pool="persistent")
        want_roof = raw_roof(c)
        if not (close(r["roof_ratio_median"], want_roof[1]) if want_roof else r["roof_ratio_median"] == ""):
            bad.append(f"{r['kernel']} {r['threads']}T roof ratio")
    check("roofline: paired compute roofs = 2 x the median of the compute samples of each family's gemm cases; "
          "each point's ratio to its roof", not bad, bad)
    return points


def check_layouts(run_dir, rows, expect):
    cases = raw_bench(run_dir)
    bad = []
    for r in rows:
        c = find_case(cases, kernel=r["kernel"], shape=r["shape"], threads=r["threads"], pool=r["pool"])
        probe = raw_stats(c, "probe_gbs")[1]
        bpw = c["matrix_bytes"] / (c["rows"] * c["K"])
        stock = [s for s in cases if s["kernel"].startswith("pq2_0_gemv") and s["threads"] == r["threads"]
                 and s["pool"] == r["pool"]]
        stock_med = max(raw_stats(s, "gweights_s")[1] for s in stock) if stock else None
        med = raw_stats(c, "gweights_s")[1]
        ok = (same3((r["gweights_s_min"], r["gweights_s_median"], r["gweights_s_max"]), raw_stats(c, "gweights_s"))
              and same3((r["ratio_min"], r["ratio_median"], r["ratio_max"]), raw_stats(c, "ratio"))
              and close(r["ceiling_gb_s"], probe) and close(r["ceiling_gweights_s"], probe / bpw)
              and (close(r["speedup_vs_stock"], med / stock_med) if stock else r["speedup_vs_stock"] == ""))
        if not ok:
            bad.append(f"{r['kernel']} {r['threads']}T {r['pool']}")
    best = {}
    for c in cases:
        if c["op"] == "gemv" and c["pool"] == "persistent" and not c["kernel"].endswith("_ref"):
            k = (c.get("source", c["layout"]), c["layout"], shape_of(c), c["threads"])
            if k not in best or raw_stats(c, "gweights_s")[1] > raw_stats(best[k], "gweights_s")[1]:
                best[k] = c
    want = {(c["kernel"], shape_of(c), c["threads"], "persistent") for c in best.values()}
    got = {(r["kernel"], r["shape"], r["threads"], r["pool"]) for r in rows if r["shown"]}
    check("layouts: draws the fastest non-reference kernel per source file, layout and threads on the persistent "
          f"pool ({len(got)} bars)", got == want, sorted(got ^ want))
    n_gemv = sum(1 for c in cases if c["op"] == "gemv")
    check("layouts: a bar per gemv kernel x threads x pool", len(rows) == n_gemv, f"{len(rows)} bars, {n_gemv} cases")
    check("layouts: Gweights/s and paired ratio min/median/max, ceiling = median paired probe / bytes per weight, "
          "speed-up over stock, from bench.json", not bad, bad)
    check_flags("layouts", rows, lambda r: find_case(cases, kernel=r["kernel"], shape=r["shape"], threads=r["threads"],
                                                     pool=r["pool"])["_flags"], expect)
    return rows


def check_scaling(run_dir, rows, expect):
    cases = raw_bench(run_dir)
    bw = raw_json(run_dir, "bw.json")
    bad = []
    for x in bw["results"]:
        if x.get("domain") is not None:
            continue
        r = [r for r in rows if r["series"] == f"ciot bw {x['kernel']}" and r["threads"] == x["threads"]]
        if len(r) != 1 or not all(close(r[0][f"gb_s_{s}"], x[f"{s}_gbs"]) for s in ("min", "median", "max")) \
                or row_flags(r[0]) != (["cache_resident"] if bw["cache_resident"] else []):
            bad.append(f"bw {x['kernel']} {x['threads']}T")
    check("scaling: bw.json points = its min/median/max, flagged when its buffer is cache-resident", not bad, bad)
    bad = []
    paired = [r for r in rows if r["what"] == "paired_probe"]
    threads = sorted({c["threads"] for c in cases if c["pool"] == "persistent"})
    for r in paired:
        raw = raw_paired_probe(cases, r["threads"])
        if not same3((r["gb_s_min"], r["gb_s_median"], r["gb_s_max"]), (min(raw), statistics.median(raw), max(raw))):
            bad.append(f"{r['threads']}T")
    check("scaling: paired probe per thread count = min/median/max of the raw persistent-pool samples",
          not bad and sorted(r["threads"] for r in paired) == threads, bad or [r["threads"] for r in paired])
    bad = []
    kernel_rows = [r for r in rows if r["what"] == "kernel"]
    for r in kernel_rows:
        c = find_case(cases, kernel=r["kernel"], shape=r["shape"], batch=r["batch"], threads=r["threads"], pool="persistent")
        roof = raw_roof(c)
        got_roof = (r["roof_ratio_min"], r["roof_ratio_median"], r["roof_ratio_max"])
        if not (same3((r["gb_s_min"], r["gb_s_median"], r["gb_s_max"]), raw_stats(c, "kernel_gbs"))
                and same3((r["ratio_min"], r["ratio_median"], r["ratio_max"]), raw_stats(c, "ratio"))
                and (same3(got_roof, roof) if roof else got_roof == ("", "", ""))):
            bad.append(f"{r['series']} {r['threads']}T")
        if c["op"] == "gemv" and roof and not same3(roof, raw_stats(c, "ratio")):
            bad.append(f"{r['series']} {r['threads']}T: a gemv's roof ratio is not its read ratio")
    check("scaling: kernel points = GB/s, read ratio and ratio to the roof min/median/max from bench.json "
          "(a gemv's roof ratio is its read ratio; a row without a roof has none)",
          not bad and len(kernel_rows) == sum(1 for c in cases if c["pool"] == "persistent"), bad)
    check_flags("scaling", kernel_rows, lambda r: find_case(cases, kernel=r["kernel"], shape=r["shape"], batch=r["batch"],
                                                            threads=r["threads"], pool="persistent")["_flags"], expect)
    check_domains(bw, rows)
    return kernel_rows


def check_domains(bw, rows):
    """`ciot bw --place domains` rows: one table row per domain alone and all, its read min/median/max."""
    raw = [x for x in bw["results"] if x.get("domain") is not None]
    got = [r for r in rows if r["what"] == "domain"]
    bad = [x["domain"] for x in raw
           if len([r for r in got if r["domain"] == x["domain"] and r["threads"] == x["threads"] and
                   all(close(r[f"gb_s_{s}"], x[f"{s}_gbs"]) for s in ("min", "median", "max"))]) != 1]
    check("scaling: a row per bw.json domain (each alone, then all) = its read min/median/max, none in the thread "
          "panels", not bad and len(got) == len(raw), bad or f"{len(got)} rows, {len(raw)} in bw.json")


def check_shown(run_dir, label, plot, rows):
    """Up to 24 series (kernel x shape x batch, persistent pool) every one is drawn; above, the fastest per source
    file, op and shape at the most threads (a gemm's at batch 4 and its largest batch) and the stock gemvs."""
    global big_runs
    cases = [c for c in raw_bench(run_dir) if c["pool"] == "persistent"]
    key = lambda c: (c["kernel"], shape_of(c), c["batch"])   # noqa: E731
    want = {key(c) for c in cases}
    if len(want) > 24 or plot == "roofline":   # the roofline names the leading series whatever their number
        big_runs += plot == "scaling"
        top = max(c["threads"] for c in cases)
        batches = sorted({c["batch"] for c in cases if c["op"] == "gemm"})
        ends = {4 if 4 in batches else batches[0], batches[-1]} if batches else set()
        groups = {}
        for c in cases:
            if c.get("engine", "ciot") == "ciot" and c["threads"] == top and (c["op"] == "gemv" or c["batch"] in ends):
                groups.setdefault((c.get("source", c["layout"]), c["op"], shape_of(c), c["batch"]), []).append(c)
        want = {key(max(g, key=lambda c: raw_stats(c, "gweights_s")[1])) for g in groups.values()}
        want |= {key(c) for c in cases if c["layout"] == "pq2_0" and c["op"] == "gemv" and not c["kernel"].endswith("_ref")}
        if plot == "roofline":
            want |= {key(c) for c in cases if c.get("engine") == "peer"}   # a runtime's type: always drawn
    got = {(r["kernel"], r["shape"], r["batch"]) for r in rows if r.get("what", "point") in ("point", "kernel") and r["shown"]}
    check(f"{label} {plot}: draws every series up to 24 (the roofline: never all), else the fastest per source file, op and batch and the stock "
          f"gemv ({len(got)} drawn)", got == want, sorted(got ^ want))


def run_label(d):
    """A run as the profile names it: its dispatch, and its context for a whole token."""
    return d["dispatch"] + (f" L={d['context']}" if "context" in d else "")


def check_profile(run_dir, rows, top, expect):
    rp = raw_json(run_dir, "replay.json")
    bad = []
    for d in rp["runs"]:
        mine = [r for r in rows if r["dispatch"] == run_label(d)]
        disp = [r for r in mine if r["what"] == "dispatch"]
        if len(disp) != 1 or not (close(disp[0]["tok_s"], d["tok_s"]) and close(disp[0]["bound_tok_s"], d["bound_tok_s"])
                                  and close(disp[0]["ms_per_token_median"], d["ms_per_token"]["median"])
                                  and close(disp[0]["wait_share"], d["wait_share"])
                                  and close(disp[0]["ceiling_gbs"], rp["ceiling_gbs"])
                                  and same3((disp[0]["ratio_min"], disp[0]["ratio_median"], disp[0]["ratio_max"]),
                                            (d["ratio"]["min"], d["ratio"]["median"], d["ratio"]["max"]))):
            bad.append(f"{d['dispatch']} totals")
        sums = {}
        for op in d["ops"]:
            s = sums.setdefault(op["name"].rsplit(".", 1)[-1], [0.0, 0.0, 0.0, False])
            s[0] += op["wall_us"]
            s[1] += statistics.fmean(t["busy_us"] for t in op["threads"])
            s[2] += statistics.fmean(t["wait_us"] for t in op["threads"])
            s[3] |= op["ratio_above_1"]
        for r in (r for r in mine if r["what"] == "op"):
            if not all(close(a, b) for a, b in zip((r["wall_us"], r["busy_us_mean"], r["wait_us_mean"]), sums[r["name"]])):
                bad.append(f"{d['dispatch']} {r['name']}")
            if row_flags(r) != (["ratio_above_1"] if sums[r["name"]][3] else []):
                bad.append(f"{d['dispatch']} {r['name']}: flags {r['flags']!r}")
        shown = [r for r in mine if r["what"] in ("op", "op_rest")]
        total = sum(s[0] for s in sums.values())
        if not close(sum(r["wall_us"] for r in shown), total):
            bad.append(f"{d['dispatch']}: the bars do not add up to the token")
        walls = [r["wall_us"] for r in mine if r["what"] == "op"]
        if walls != sorted(walls, reverse=True) or len(walls) > top:
            bad.append(f"{d['dispatch']}: not the slowest first")
    check("profile: per-op work, wait and flags, tokens/s, bound, ceiling and paired ratios from replay.json", not bad, bad)
    cache = not rp["cold"] or rp["ceiling_buffer_cache_resident"]
    runs = {run_label(d): d for d in rp["runs"]}

    def want(r):
        d = runs[r["dispatch"]]
        return [f for f, on in (("ratio_above_1", d["ratio_above_1"] or d["tok_s"] > d["bound_tok_s"]),
                                ("cache_resident", cache)) if on]
    check_flags("profile dispatch modes", [r for r in rows if r["what"] == "dispatch"], want, expect)
    op_rows = [r for r in rows if r["what"] == "op"]
    check("profile: op kinds above 100% exercised", expect != "mixed" or 0 < sum(1 for r in op_rows if r["flags"]) < len(op_rows))
    return [r for r in rows if r["what"] in ("dispatch", "op", "op_rest")]


CHECKS = {"roofline": check_roofline, "layouts": check_layouts, "scaling": check_scaling}


# --- what a reader meets: the drawn figure itself ---

MAX_LAYOUT_BARS = 6      # bars per panel of the layout chart: a source file's layouts (at most 4 today)
MAX_ROOFLINE_SERIES = 16  # named series on the roofline (4 source files x gemv and 2 gemm batches, and the stock)
MAX_LEGEND_SHARE = 0.15  # of the axes' area a legend may take


def drawn_figure(module, run_dir, **kwargs):
    """module.plot(run) drawn in this process, the figure kept instead of saved: (figure, table rows)."""
    import importlib
    from runfolder import Run
    mod = importlib.import_module(module)
    kept = []
    saved = mod.save
    mod.save = lambda fig, base: kept.append(fig) or [base + ".png", base + ".svg"]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            rows = mod.plot(Run(run_dir), os.path.join(tempfile.gettempdir(), "unused"), **kwargs)
    finally:
        mod.save = saved
    return kept[0], rows


@contextlib.contextmanager
def figures_saved(module, kept):
    """Appends to kept each figure module saves (PNG and SVG written as always) while the block runs."""
    import importlib
    mod = importlib.import_module(module)
    saved = mod.save
    mod.save = lambda fig, base: kept.append(fig) or saved(fig, base)
    try:
        yield
    finally:
        mod.save = saved


def text_boxes(fig):
    """(text, display box) of every Text the figure draws: visible, not empty, tick labels only of the ticks
    inside the axis' view."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ticks = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - 1e-9 * abs(lo) <= tick.get_loc() <= hi + 1e-9 * abs(hi):
                    ticks |= {id(tick.label1), id(tick.label2)}
    from matplotlib.text import Text
    out = []
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip() or id(t) in ticks or t.figure is None:
            continue
        out.append((t.get_text(), Text.get_window_extent(t, renderer)))   # an annotation's text, not its leader
    return out


def overlapping_texts(fig, boxes=None):
    """Pairs of drawn texts whose boxes overlap (by more than a pixel each way); boxes: text_boxes(fig)
    when the caller has them already (each call of it draws the figure again)."""
    boxes = text_boxes(fig) if boxes is None else boxes
    out = []
    for i, (a, ba) in enumerate(boxes):
        for b, bb in boxes[i + 1:]:
            if min(ba.x1, bb.x1) - max(ba.x0, bb.x0) > 1 and min(ba.y1, bb.y1) - max(ba.y0, bb.y0) > 1:
                out.append(f"{a!r} / {b!r}")
    return out


def legend_share(fig):
    """The legends' area over the axes' area."""
    renderer = fig.canvas.get_renderer()
    legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    area = lambda b: abs(b.width * b.height)   # noqa: E731
    axes = sum(area(ax.get_window_extent(renderer)) for ax in fig.axes)
    return sum(area(lg.get_window_extent(renderer)) for lg in legends) / axes


def layout_bars_per_panel(fig):
    """The most bars in one panel of the layout chart."""
    from matplotlib.patches import Rectangle
    return max(sum(1 for p in ax.patches if isinstance(p, Rectangle)) for ax in fig.axes)


def check_readable(run_dir, label, figures):
    """The layout chart and the roofline as drawn: no two texts overlap, few series, a small legend. figures:
    plot -> (figure, table rows) of the figures the script saved in this process; a plot not in it is drawn
    here again (its script ran in a process of its own)."""
    fig, rows = figures.get("layouts") or drawn_figure("layouts", run_dir)
    overlaps = overlapping_texts(fig)   # once: each call draws the figure again
    check(f"{label} layouts: no two texts overlap", not overlaps, overlaps)
    bars = layout_bars_per_panel(fig)
    check(f"{label} layouts: at most {MAX_LAYOUT_BARS} bars per panel ({bars})", 0 < bars <= MAX_LAYOUT_BARS)
    share = legend_share(fig)
    check(f"{label} layouts: legend {100 * share:.1f}% of the axes' area (at most {100 * MAX_LEGEND_SHARE:.0f}%)",
          share <= MAX_LEGEND_SHARE)
    fig, rows = figures.get("roofline") or drawn_figure("roofline", run_dir)
    boxes = text_boxes(fig)
    overlaps = overlapping_texts(fig, boxes)
    check(f"{label} roofline: no two texts overlap", not overlaps, overlaps)
    named = {(r["kernel"], r["shape"], r["batch"]) for r in rows if r["what"] == "point" and r["shown"]}
    check(f"{label} roofline: at most {MAX_ROOFLINE_SERIES} series named ({len(named)})",
          0 < len(named) <= MAX_ROOFLINE_SERIES)
    share = legend_share(fig)
    check(f"{label} roofline: legend {100 * share:.1f}% of the axes' area (at most {100 * MAX_LEGEND_SHARE:.0f}%)",
          share <= MAX_LEGEND_SHARE)
    texts = " ".join(t for t, _ in boxes)
    check(f"{label} roofline: every roof named on the plot", "read roof" in texts and "GOPS" in texts)
    import matplotlib.pyplot as plt
    plt.close("all")


def test_readable_checks_fail(run_dir):
    """Each readability check fails on a figure that breaks it: two texts drawn at one place, a legend of 20
    rows, and --all-kernels' panels of every kernel (more bars than a reader can take in)."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.text(0.5, 0.5, "t2p_gemv_avx2 64%")
    ax.text(0.52, 0.5, "tl2_gemv_avx2 80%")
    check("the overlap check catches two labels drawn on each other", len(overlapping_texts(fig)) == 1)
    for i in range(20):
        ax.plot([], [], label=f"1T: a compute roof paired with the gemm cases of 7 kernels, median {i} GOPS")
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, -2.5))
    check("the legend check catches a legend of 20 rows", legend_share(fig) > MAX_LEGEND_SHARE, legend_share(fig))
    plt.close(fig)
    fig, _ = drawn_figure("layouts", run_dir, all_kernels=True)
    check("the bar-count check catches every kernel of a source file in one panel (--all-kernels)",
          layout_bars_per_panel(fig) > MAX_LAYOUT_BARS, layout_bars_per_panel(fig))
    plt.close("all")


def draw(inprocess, script, *args):
    """(exit status, stderr) of a plot script: run as a user runs it (a process of its own), or with inprocess
    its main(argv) in this process, which draws and saves the same pictures and table without starting Python
    and importing matplotlib again."""
    if inprocess:
        return run_inprocess(script, *args)
    rc, _, err = run(script, *args)
    return rc, err


def test_run(run_dir, label, tmp, expect=None, render=True, inprocess=True):
    """Every plot of a run folder against its raw JSON. expect: 'mixed' when the run must have flagged and
    unflagged rows in every plot, 'all' when every row must be flagged, None for a real run (whatever it has).
    render: also draw the folder through plots/render and count its pictures. inprocess=False: each script
    and plots/render in a process of its own, as a user runs them (the mixed synthetic run: their command
    lines and exit statuses); otherwise their main() here."""
    context = raw_json(run_dir, "context.json")
    out = os.path.join(tmp, "out-" + label)
    figures = {}   # plot -> (figure, rows) as its script saved it in this process: check_readable checks those
    for plot, script in PER_RUN.items():
        if plot == "context":   # a whole token's only: test_whole_token draws and checks it
            continue
        if plot == "profile" and not os.path.exists(os.path.join(run_dir, "replay.json")):
            rc, err = draw(inprocess, script, run_dir, "--out", out)
            check(f"{label} {plot}: asked directly without replay.json, one clear error",
                  rc != 0 and "replay.json: missing" in err and "Traceback" not in err, f"rc {rc}, {err!r}")
            continue
        table = os.path.join(tmp, f"{label}-{plot}.json")
        args = [run_dir, "--out", out] + (["--top", "8"] if plot == "profile" else [])
        kept = []
        with figures_saved(script[:-3], kept):
            rc, err = draw(inprocess, script, *args, "--table", table)
        if not check(f"{label} {plot}: runs", rc == 0, err.strip()):
            continue
        svg = check_pictures(f"{label} {plot}", os.path.join(out, f"{os.path.basename(run_dir)}-{plot}"), context)
        rows = load_table(table)
        if len(kept) == 1:
            figures[plot] = (kept[0], rows)
        if plot == "profile":
            flagged = check_profile(run_dir, rows, 8, expect)
            rp = raw_json(run_dir, "replay.json")
            texts = {"ratio_above_1": rp["flags"]["ratio_above_1"]}
            if not rp["cold"]:
                texts["cache_resident"] = rp["flags"]["cold_false"]
            check_flag_legend(f"{label} {plot}", svg, flagged, texts)
            ov = rp["timing_overhead"]
            said = ("% (unpaired)" if "pairs" not in ov else "timing overhead within noise (" if ov["within_noise"]
                    else f" over {ov['pairs']} pairs)")
            check(f"{label} {plot}: the title gives the timing overhead ({said!r})", said in svg)
        else:
            flagged = CHECKS[plot](run_dir, rows, expect)
            # each plot draws only its shown rows (by default the leading series, the fastest kernel per layout),
            # so only their flags are drawn and explained
            drawn = [r for r in flagged if r.get("shown", True) is not False]
            check_flag_legend(f"{label} {plot}", svg, drawn, raw_flag_texts(run_dir))
        if plot in ("roofline", "scaling"):
            check_shown(run_dir, label, plot, flagged)
        if plot == "layouts":
            check_readable(run_dir, label, figures)
        if plot == "scaling":
            domains = {x["domain"] for x in raw_json(run_dir, "bw.json")["results"] if x.get("domain") not in (None, "all")}
            check(f"{label} scaling: the per-domain panel is drawn when bw.json has more than one domain",
                  ("read ceiling per domain" in svg) == (len(domains) > 1), f"{len(domains)} domains")
            unroofed = [r for r in flagged if r["roof_ratio_median"] == "" and r["shown"]]
            check(f"{label} scaling: the rows without a roof are named under the ratio panel, not drawn",
                  ("no roof, not drawn" in svg) == bool(unroofed), f"{len(unroofed)} rows without a roof")
        # the CSV form holds the same rows: on the mixed synthetic runs only, since drawing again for it costs
        # a third of this test and the writer does not depend on the run (in this process: the JSON run above
        # is the command line's)
        if expect == "mixed":
            rc, _ = run_inprocess(script, *args, "--table", table[:-5] + ".csv")
            with open(table[:-5] + ".csv") as f:
                check(f"{label} {plot}: --table CSV has the rows of the JSON",
                      rc == 0 and len(list(csv.DictReader(f))) == len(rows))
    if not render:
        return
    rc, err = (run_inprocess("render.py", run_dir, "--out", out + "-render") if inprocess
               else _render(run_dir, out + "-render"))
    pics = sorted(glob.glob(os.path.join(out + "-render", "*.png")))
    has_replay = os.path.exists(os.path.join(run_dir, "replay.json"))
    want = 3 + has_replay + (has_replay and raw_json(run_dir, "replay.json").get("whole_token", False))
    check(f"{label} render: every plot", rc == 0 and len(pics) == want, f"rc {rc}, {len(pics)} pictures, {err.strip()}")


def test_whole_token(tmp):
    """A whole-token replay: the context plot draws each run's parts, tok/s, the bound and the crossover as
    replay.json has them; the profile names its panels by dispatch and context; a replay of the matvecs
    only gets one clear line from the context plot, never a traceback."""
    d = make_run.make(os.path.join(tmp, "synthetic-whole"), whole=True)
    test_run(d, "synthetic-whole", tmp, expect="mixed")
    rp = raw_json(d, "replay.json")
    table, out = os.path.join(tmp, "whole-context.json"), os.path.join(tmp, "whole-out")
    rc, _, err = run("context.py", d, "--out", out, "--table", table)
    if not check("whole token: the context plot runs", rc == 0, err):
        return
    rows = load_table(table)
    bad = []
    for r in rp["runs"]:
        for part, v in r["split"].items():
            got = [x for x in rows if x["what"] == "part" and x["context"] == r["context"] and x["part"] == part]
            if len(got) != 1 or not close(got[0]["ms_median"], v["ms_median"]):
                bad.append(f"L={r['context']} {part}")
        got = [x for x in rows if x["what"] == "run" and x["context"] == r["context"]]
        if len(got) != 1 or not (close(got[0]["tok_s"], r["tok_s"]) and close(got[0]["bound_tok_s"], r["bound_tok_s"])):
            bad.append(f"L={r['context']} tok/s and bound")
    cross = [x for x in rows if x["what"] == "crossover"]
    if len(cross) != 1 or not close(cross[0]["context"], rp["crossover"]["context"]):
        bad.append("crossover")
    check("whole token: the context plot's parts, tok/s, bound and crossover are replay.json's", not bad, bad)
    svg = open(os.path.join(out, "synthetic-whole-context.svg")).read()
    check("whole token: the crossover is written on the plot",
          f"{rp['crossover']['context']:,.0f}" in svg and "attention = matvecs" in svg)
    rulers = [f"{x['ruler']} {statistics.median(x['gbs_per_token']):.3g}" for x in rp["rulers"]]
    check("whole token: the bound names every ruler and its median (read, update for DeltaNet, copy_nt for the "
          "state copies)", "paired ruler" in svg and all(r in svg for r in rulers) and len(rulers) == 3, rulers)
    # a pairing with a ruler never sampled, or read samples that are not the probe's, is refused in one line
    for what, edit, pattern in (
            ("an op paired with a ruler not sampled",
             lambda o: next(x for x in o["runs"][0]["ops"] if x["kind"] == "deltanet").update(ruler="copy"),
             r'replay\.json: runs\[0\]\.ops\[\d+\]: "ruler" is "copy", but "rulers" has no samples of it'),
            ("read-ruler samples that are not the probe's",
             lambda o: o["rulers"][0]["gbs_per_token"].__setitem__(0, 2 * o["rulers"][0]["gbs_per_token"][0]),
             r'replay\.json: "rulers": the read ruler\'s samples are not "probe_gbs_per_token"'),
            ("a ruler sampled for fewer tokens", lambda o: o["rulers"][1].update(gbs_per_token=[1.0]),
             r'replay\.json: rulers\[1\], "gbs_per_token" has 1 samples, expected one per token')):
        broken = os.path.join(tmp, "synthetic-whole-" + what.split()[0] + str(len(pattern)))
        shutil.copytree(d, broken)
        doc = raw_json(broken, "replay.json")
        edit(doc)
        with open(os.path.join(broken, "replay.json"), "w") as f:
            json.dump(doc, f)
        rc, err = run_inprocess("context.py", broken, "--out", out)
        check(f"whole token: {what}: one clear line", rc == 2 and len(err.strip().splitlines()) == 1 and
              re.search(pattern, err) is not None and "Traceback" not in err, f"rc {rc}, {err!r}")
    plain = make_run.make(os.path.join(tmp, "synthetic-plain"))
    rc, err = run_inprocess("context.py", plain, "--out", out)
    check("a replay of the matvecs only: the context plot refuses it in one line",
          rc == 2 and "not a whole-token replay" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1,
          f"rc {rc}, {err!r}")


def test_replay_warm(good, tmp):
    """A replay whose weights are not cold: every dispatch mode carries the cache-resident flag and its text."""
    d = os.path.join(tmp, "replay-warm")
    shutil.copytree(good, d)
    rp = raw_json(d, "replay.json")
    rp["cold"] = False
    with open(os.path.join(d, "replay.json"), "w") as f:
        json.dump(rp, f)
    table = os.path.join(tmp, "replay-warm.json")
    rc, err = run_inprocess("op_profile.py", d, "--out", os.path.join(tmp, "replay-warm-out"), "--table", table)
    if check("replay not cold: profile runs", rc == 0, err):
        modes = [r for r in load_table(table) if r["what"] == "dispatch"]
        check("replay not cold: every dispatch mode flagged cache-resident",
              modes and all("cache_resident" in row_flags(r) for r in modes), [r["flags"] for r in modes])
        svg = open(os.path.join(tmp, "replay-warm-out", "replay-warm-profile.svg")).read()
        check("replay not cold: the legend says why", escape(rp["flags"]["cold_false"]) in svg)


def _render(run_dir, out):
    """(exit status, stderr) of plots/render in a process of its own."""
    p = subprocess.run([os.path.join(HERE, "render"), run_dir, "--out", out], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stderr


def test_compare(a, b, tmp):
    out = os.path.join(tmp, "compare")
    table = os.path.join(tmp, "compare-table.json")
    rc, text, err = run("compare.py", a, b, "--out", out, "--table", table)
    if not check("compare: runs", rc == 0, err.strip()):
        return
    check_pictures("compare", os.path.join(out, "compare"), None)
    svg = open(os.path.join(out, "compare.svg")).read()
    names = [raw_json(r, "context.json")[k] for r in (a, b) for k in ("host", "commit", "date")]
    check("compare: every run's machine, date and commit on the chart", all(n in svg for n in names),
          [n for n in names if n not in svg])
    check("compare: ratio table saved as markdown and CSV",
          os.path.isfile(os.path.join(out, "compare.md")) and os.path.isfile(os.path.join(out, "compare.csv")))
    check("compare: ratio table printed", "| case |" in text and "run 2 / run 1" in text)
    rows = load_table(table)
    benches = [raw_bench(a), raw_bench(b)]
    bad, bad_flags = [], []
    kernel_rows = [r for r in rows if r["what"] == "kernel"]
    for r in kernel_rows:
        c = find_case(benches[r["run_index"] - 1], kernel=r["kernel"], shape=r["shape"], batch=r["batch"],
                      threads=r["threads"], pool=r["pool"])
        base = find_case(benches[0], kernel=r["kernel"], shape=r["shape"], batch=r["batch"], threads=r["threads"], pool=r["pool"])
        med = raw_stats(c, "gweights_s")[1]
        want_ratio = med / raw_stats(base, "gweights_s")[1] if base else ""
        if not close(r["median"], med) or (want_ratio != "" and not close(r["ratio_to_run_1"], want_ratio)):
            bad.append(f"{r['case']} run {r['run_index']}")
        if row_flags(r) != c["_flags"]:
            bad_flags.append(f"{r['case']} run {r['run_index']}")
    check("compare: medians and ratios to run 1 from bench.json", not bad and kernel_rows, bad)
    check("compare: each run's case carries the flags of its raw data", not bad_flags, bad_flags)
    check("compare: flags exercised (some cases flagged, some not)",
          0 < sum(1 for r in kernel_rows if r["flags"]) < len(kernel_rows))
    bad = []
    for r in (r for r in rows if r["what"] == "paired_probe"):
        raw = raw_paired_probe(benches[r["run_index"] - 1], r["threads"])
        base = raw_paired_probe(benches[0], r["threads"])
        if not close(r["median"], statistics.median(raw)) or (base and not close(r["ratio_to_run_1"],
                                                                                statistics.median(raw) / statistics.median(base))):
            bad.append(f"{r['case']} run {r['run_index']}")
    check("compare: paired probe medians per thread count from bench.json", not bad and any(
        r["what"] == "paired_probe" for r in rows), bad)
    texts = raw_flag_texts(a)
    check_flag_legend("compare", svg, [r for r in kernel_rows if sum(x["case"] == r["case"] for x in kernel_rows) > 1],
                      texts)
    md = open(os.path.join(out, "compare.md")).read()
    check("compare: the table names the flags and says what they mean",
          "| flags |" in md and "run 2: cache-resident" in md and "run 1: ratio above 100%" in md
          and all(t in md for t in texts.values()), md[-400:])
    md = open(os.path.join(out, "compare.md")).read()
    check("compare: conditions that differ are named (compiler, threads, quick, dirty)",
          all(w in md for w in ("compiler GCC", "threads 1,2,4,8", "quick", "dirty")), md.splitlines()[:2])
    rc, err = run_inprocess("compare.py", a)
    check("compare: one run only is refused", rc != 0 and "Traceback" not in err)


# --- broken inputs ---

DEFECTS = {
    "missing": None,
    "empty": "",
    "not JSON": "{\"a\": [1, 2",
    "a list at the top": "[]",
}


def field_defects():
    """(file, description, mutate(obj)) for one wrong field per file."""
    def set_path(obj, path, value):
        for k in path[:-1]:
            obj = obj[k]
        if value is KeyError:
            del obj[path[-1]]
        else:
            obj[path[-1]] = value
        return obj
    return [
        ("context.json", "no host", lambda d: set_path(d, ["host"], KeyError)),
        ("bw.json", "a median that is text", lambda d: set_path(d, ["results", 0, "median_gbs"], "fast")),
        ("bw.json", "no results", lambda d: set_path(d, ["results"], [])),
        ("compute.json", "no threads", lambda d: set_path(d, ["results", 0, "threads"], KeyError)),
        ("bench.json", "no cases", lambda d: set_path(d, ["cases"], KeyError)),
        ("bench.json", "a repetition without probe_gbs", lambda d: set_path(d, ["cases", 0, "repetitions", 1, "probe_gbs"],
                                                                           KeyError)),
        ("bench.json", "an op it cannot read", lambda d: set_path(d, ["cases", 0, "op"], "gemx")),
        ("bench.json", "kernel_gbs of zero", lambda d: set_path(d, ["cases", 0, "repetitions", 0, "kernel_gbs"], 0)),
        ("bench.json", "no protocol", lambda d: set_path(d, ["protocol"], KeyError)),
        ("replay.json", "no runs", lambda d: set_path(d, ["runs"], [])),
        ("replay.json", "an op without threads", lambda d: set_path(d, ["runs", 0, "ops", 0, "threads"], KeyError)),
        ("replay.json", "tok_s null", lambda d: set_path(d, ["runs", 1, "tok_s"], None)),
        ("replay.json", "no probe samples", lambda d: set_path(d, ["probe_gbs_per_token"], KeyError)),
        ("replay.json", "no ratio per token", lambda d: set_path(d, ["runs", 0, "ratio_per_token"], KeyError)),
    ]


NEEDS = {"context.json": "roofline.py", "bw.json": "scaling.py", "compute.json": "roofline.py",
         "bench.json": "layouts.py", "replay.json": "op_profile.py"}


def run_inprocess(script, *args):
    """main(argv) of a script in this process, (rc, stderr): the same checks as a subprocess without starting
    Python and importing matplotlib for each call (a refused input: a tenth of the time)."""
    import importlib
    module = importlib.import_module(script[:-3])
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            rc = module.main(list(args))
        except SystemExit as e:   # argparse refusals
            rc = e.code
        except Exception as e:   # would have been a traceback
            rc, err = 99, io.StringIO(f"Traceback: {type(e).__name__}: {e}")
    return rc, err.getvalue()


def one_clear_line(label, rc, err, fname):
    lines = [l for l in err.splitlines() if l.strip()]
    check(f"{label}: one clear message and a non-zero exit",
          rc != 0 and len(lines) == 1 and fname in lines[0] and "Traceback" not in err, f"rc {rc}, stderr {err!r}")


def test_broken(good, tmp):
    for fname, script in NEEDS.items():
        for defect, content in DEFECTS.items():
            d = os.path.join(tmp, f"broken-{fname}-{defect.replace(' ', '_')}")
            shutil.copytree(good, d)
            if content is None:
                os.remove(os.path.join(d, fname))
            else:
                with open(os.path.join(d, fname), "w") as f:
                    f.write(content)
            rc, err = run_inprocess(script, d, "--out", os.path.join(tmp, "broken-out"))
            one_clear_line(f"{fname} {defect} ({script})", rc, err, fname)
    for fname, defect, mutate in field_defects():
        d = os.path.join(tmp, f"broken-{fname}-{defect.replace(' ', '_')}")
        shutil.copytree(good, d)
        obj = raw_json(d, fname)
        mutate(obj)
        with open(os.path.join(d, fname), "w") as f:
            json.dump(obj, f)
        rc, err = run_inprocess(NEEDS[fname], d, "--out", os.path.join(tmp, "broken-out"))
        one_clear_line(f"{fname} {defect} ({NEEDS[fname]})", rc, err, fname)
    # the entry point: one line per cause, even when three plots stop on the same broken file
    d = os.path.join(tmp, "broken-bench.json-empty")
    rc, err = _render(d, os.path.join(tmp, "broken-render"))
    one_clear_line("render with an empty bench.json", rc, err, "bench.json")
    rc, _, err = run("roofline.py", os.path.join(tmp, "no-such-run"))
    one_clear_line("a run folder that does not exist", rc, err, "no-such-run")
    rc, err = run_inprocess("roofline.py", good, "--table", os.path.join(tmp, "t.txt"))
    check("--table with an unknown extension is refused", rc != 0 and "Traceback" not in err, err)


# --- a table of broken run folders, through plots/render as a user runs it ---

def _doc(fname, fn):
    """A mutation applying fn(obj) to fname's parsed document and writing it back."""
    def mutate(d):
        obj = raw_json(d, fname)
        fn(obj)
        with open(os.path.join(d, fname), "w") as f:
            json.dump(obj, f)
    return mutate


def _edit(fname, *path_value):
    """A mutation setting obj[path...] = value in fname (value KeyError: delete it)."""
    *path, value = path_value

    def edit(obj):
        for k in path[:-1]:
            obj = obj[k]
        if value is KeyError:
            del obj[path[-1]]
        else:
            obj[path[-1]] = value
    return _doc(fname, edit)


def _bench(fn):
    return _doc("bench.json", fn)


def _replay(fn):
    return _doc("replay.json", fn)


def _each_rep(fn):
    """A mutation applying fn(repetition) to every repetition of every case of bench.json."""
    return _bench(lambda obj: [fn(r) for c in obj["cases"] for r in c["repetitions"]])


def _each_case(fn):
    return _bench(lambda obj: [fn(c) for c in obj["cases"]])


def _first_rep_above_1(obj):
    """The first repetition above 100% (make_run puts one in every synthetic run)."""
    return next(r for c in obj["cases"] for r in c["repetitions"] if r["ratio"] > 1)


def _first_case_above_1(obj):
    return next(c for c in obj["cases"] if c["summary"]["ratio_above_1"])


def _unflag_rep(obj):
    _first_rep_above_1(obj)["ratio_above_1"] = False


def _wrong_ratio(obj):
    r = obj["cases"][0]["repetitions"][0]
    r["ratio"] = round(2 * r["kernel_gbs"] / r["probe_gbs"], 4)


def _compute_bound_case(obj):
    return next(c for c in obj["cases"] if c["summary"]["bound"] == "compute")


def _lookup_case(obj):
    return next(c for c in obj["cases"] if c["op"] == "gemm" and c["compute_family"] is None)


def _read_ratio_as_roof(obj):
    r = _compute_bound_case(obj)["repetitions"][0]
    r["ratio_to_bound"] = r["ratio"]


def _unflag_compute(obj):
    next(r for c in obj["cases"] for r in c["repetitions"] if r["above_compute_roof"])["above_compute_roof"] = False


def _compute_on_lookup(obj):
    _lookup_case(obj)["repetitions"][0]["compute_gmacs"] = 50.0


def _wrong_bound(obj):
    r = _compute_bound_case(obj)["repetitions"][0]
    r["bound"], r["bound_gmacs"], r["ratio_to_bound"] = "bw", r["bw_roof_gmacs"], r["ratio"]


def _as_schema_2(obj):
    """The file as ciot wrote it before the roofs: no roof fields, no above_compute_roof flag."""
    obj["schema"] = 2
    del obj["protocol"]["flags"]["above_compute_roof"]
    for c in obj["cases"]:
        for k in ("intensity", "compute_family", "compute_instruction", "no_compute_roof"):
            del c[k]
        for r in c["repetitions"]:
            for k in ("compute_gmacs", "bw_roof_gmacs", "bound", "bound_gmacs", "ratio_to_bound", "above_compute_roof"):
                del r[k]
        for k in ("compute_gmacs", "bw_roof_gmacs", "bound", "bound_mixed", "ratio_to_bound", "above_compute_roof"):
            del c["summary"][k]
        c["summary"]["flags"] = [f for f in c["summary"]["flags"] if f != "above_compute_roof"]


def _unflag_op(obj):
    next(o for r in obj["runs"] for o in r["ops"] if o["ratio_above_1"])["ratio_above_1"] = False


def _text(fname, text):
    """A mutation replacing fname with text (str) or bytes."""
    def mutate(d):
        with open(os.path.join(d, fname), "wb") as f:
            f.write(text.encode() if isinstance(text, str) else text)
    return mutate


def _replace(fname, old, new):
    """A mutation replacing the first occurrence of old in fname's text (for what json.dump cannot write)."""
    def mutate(d):
        p = os.path.join(d, fname)
        with open(p) as f:
            text = f.read()
        with open(p, "w") as f:
            f.write(text.replace(old, new, 1))
    return mutate


def _sparse(fname, size):
    def mutate(d):
        with open(os.path.join(d, fname), "wb") as f:
            f.truncate(size)
    return mutate


def _fifo(fname):
    def mutate(d):
        os.remove(os.path.join(d, fname))
        os.mkfifo(os.path.join(d, fname))
    return mutate


def _many_cases(n):
    def mutate(obj):
        c = obj["cases"][0]
        obj["cases"] = [dict(c, name=f"{c['name']}#{i}") for i in range(n)]
    return _bench(mutate)


def _incomplete(d):
    with open(os.path.join(d, "INCOMPLETE"), "w") as f:
        f.write("This run folder is incomplete: ciot suite (pid 1) ...\n")


# (how the folder is broken, mutation, expected exit, pattern of the one stderr line; None: no stderr)
BROKEN_RUNS = [
    ("bw.json: a negative median", _edit("bw.json", "results", 0, "median_gbs", -5.0), 2,
     r'bw\.json: results\[0\], "median_gbs" is -5'),
    ("bw.json: a zero median", _edit("bw.json", "results", 1, "median_gbs", 0), 2, r'bw\.json: results\[1\], "median_gbs" is 0'),
    ("bw.json: min above median", _edit("bw.json", "results", 0, "min_gbs", 1e6), 2, r"bw\.json: results\[0\]: .*not in order"),
    ("bw.json: a sample below half its median without its flag",
     _doc("bw.json", lambda o: o["results"][0].update(min_gbs=round(o["results"][0]["median_gbs"] * 0.1, 3), low_outlier=False)),
     2, r'bw\.json: results\[0\]: "low_outlier" is false but min_gbs [0-9.]+ is below half median_gbs'),
    ("compute.json: the flag on a row whose min is near its median",
     _doc("compute.json", lambda o: o["results"][0].update(min_gops=o["results"][0]["median_gops"], low_outlier=True)),
     2, r'compute\.json: results\[0\]: "low_outlier" is true but min_gops [0-9.]+ is not below half median_gops'),
    ("bench.json: a repetition flagged low_outlier with no low sample",
     _bench(lambda o: [r.update(low_outlier=i == 0) for i, r in enumerate(o["cases"][0]["repetitions"])]), 2,
     r'bench\.json: case ".*", repetitions\[0\]: "low_outlier" is true but no sample of it is below half'),
    ("bench.json: a summary low_outlier no repetition has",
     _bench(lambda o: o["cases"][0]["summary"].update(low_outlier=True)), 2,
     r'bench\.json: case ".*", summary, "low_outlier" is true, but no repetition has it'),
    ("bw.json: a median of NaN", _replace("bw.json", '"median_gbs": ', '"median_gbs": NaN, "x": '), 2,
     r'bw\.json: results\[0\], "median_gbs" is NaN, expected a finite number'),
    ("bw.json: a median of 1e308", _edit("bw.json", "results", 0, "median_gbs", 1e308), 2, r'bw\.json: .*"median_gbs" is 1e\+308'),
    ("bw.json: zero threads", _edit("bw.json", "results", 0, "threads", 0), 2, r'bw\.json: results\[0\], "threads" is 0'),
    ("bw.json: 10^40 threads", _edit("bw.json", "results", 0, "threads", 10 ** 40), 2, r'bw\.json: results\[0\], "threads"'),
    ("bw.json: an integer of 5000 digits", _replace("bw.json", '"threads": 1', '"threads": ' + "9" * 5000), 2,
     r"bw\.json: not valid JSON"),
    ("bw.json: a result that is a string", _edit("bw.json", "results", 0, "nonsense"), 2, r"bw\.json: results\[0\] is not a JSON object"),
    ("compute.json: nested 100000 deep", _text("compute.json", "[" * 100000 + "]" * 100000), 2, r"compute\.json: nested too deep"),
    ("compute.json: a zero median", _edit("compute.json", "results", 0, "median_gops", 0.0), 2, r'compute\.json: .*"median_gops" is 0'),
    ("compute.json: a FIFO", _fifo("compute.json"), 2, r"compute\.json: is not a regular file"),
    ("bench.json: Google Benchmark's JSON (no schema)", _text("bench.json", '{"context": {}, "benchmarks": []}'), 2,
     r"bench\.json: schema missing, expected 3 \(ciot bench --json of this version\) or 2"),
    ("bench.json: schema 1", _edit("bench.json", "schema", 1), 2, r"bench\.json: schema 1, expected 3 \(ciot bench"),
    ("bench.json: schema 2, before the roofs, is still drawn", _bench(_as_schema_2), 0, None),
    ("bench.json: a gemm's ratio to its compute roof that is its read ratio", _bench(_read_ratio_as_roof), 2,
     r'bench\.json: case ".*gemm.*", repetitions\[0\]: "ratio_to_bound" [0-9.]+ is not gweights_s / bound_gmacs'),
    ("bench.json: a repetition above its compute roof without its flag", _bench(_unflag_compute), 2,
     r'bench\.json: case ".*", repetitions\[\d\]: "above_compute_roof" is false but the repetition is above'),
    ("bench.json: a compute sample on a lookup gemm", _bench(_compute_on_lookup), 2,
     r'bench\.json: case "tl2_gemm.*", repetitions\[0\]: "compute_gmacs" is 50\.0 but the case\'s "compute_family" is null'),
    ("bench.json: bound bw under a lower compute sample", _bench(_wrong_bound), 2,
     r'bench\.json: case ".*gemm.*", repetitions\[0\]: "bound" is "bw", expected "compute"'),
    ("bench.json: a gemm with neither compute_family nor no_compute_roof",
     _bench(lambda o: _lookup_case(o).update(no_compute_roof=None)), 2,
     r'bench\.json: case "tl2_gemm.*": a gemm has either "compute_family" or "no_compute_roof", not neither'),
    ("bench.json: every probe sample zero", _each_rep(lambda r: r.update(probe_gbs=0.0)), 2,
     r'bench\.json: case ".*", repetitions\[0\], "probe_gbs" is 0'),
    ("bench.json: kernel_gbs negative", _each_rep(lambda r: r.update(kernel_gbs=-1.0)), 2,
     r'bench\.json: case ".*", repetitions\[0\], "kernel_gbs" is -1'),
    ("bench.json: a ratio of Infinity", _edit("bench.json", "cases", 0, "repetitions", 0, "ratio", float("inf")), 2,
     r'bench\.json: case ".*", repetitions\[0\], "ratio" is Infinity'),
    ("bench.json: a repetition without probe_gbs", _edit("bench.json", "cases", 2, "repetitions", 3, "probe_gbs", KeyError),
     2, r'bench\.json: case ".*", repetitions\[3\] has no "probe_gbs"'),
    ("bench.json: a ratio that is not kernel_gbs / probe_gbs", _bench(_wrong_ratio), 2,
     r'bench\.json: case ".*", repetitions\[0\]: "ratio" [0-9.]+ is not kernel_gbs / probe_gbs'),
    ("bench.json: a repetition above 100% without its flag", _bench(_unflag_rep), 2,
     r'bench\.json: case ".*", repetitions\[\d\]: "ratio_above_1" is false but "ratio" is 1\.'),
    ("bench.json: a summary without the flag", _bench(lambda o: _first_case_above_1(o)["summary"].update(flags=[])), 2,
     r'bench\.json: case ".*", summary, "flags" is \[\], expected \["ratio_above_1"\]'),
    ("bench.json: a summary that is not the repetitions'",
     _bench(lambda o: o["cases"][1]["summary"].update(probe_gbs={"min": 1, "median": 1, "max": 1})), 2,
     r'bench\.json: case ".*", summary\.probe_gbs, "min" is 1, but the repetitions\' min is'),
    ("bench.json: no repetitions", _edit("bench.json", "cases", 0, "repetitions", []), 2,
     r'bench\.json: case ".*", "repetitions" is empty'),
    ("bench.json: a case that is a number", _edit("bench.json", "cases", 0, 5), 2,
     r"bench\.json: cases\[0\] is 5, expected an object"),
    ("bench.json: a case twice", _bench(lambda o: o["cases"].append(o["cases"][0])), 2,
     r'bench\.json: case ".*" appears twice'),
    ("bench.json: 5000 cases", _many_cases(5000), 2, r"bench\.json: more than 4096 benchmark cases"),
    ("bench.json: 70000 threads", _each_case(lambda c: c.update(threads=70000)), 2,
     r'bench\.json: case ".*", "threads" is 70000'),
    ("bench.json: a pool it does not know", _edit("bench.json", "cases", 0, "pool", "elastic"), 2,
     r'bench\.json: case ".*", "pool" is "elastic", expected "persistent" or "spawn"'),
    ("bench.json: 300 MiB (sparse)", _sparse("bench.json", 300 << 20), 2, r"bench\.json: is 300 MiB"),
    ("bench.json: not UTF-8", _text("bench.json", b'{"a": "\xff"}'), 2, r"bench\.json: not UTF-8"),
    ("context.json: a host of 5000 characters", _edit("context.json", "host", "h" * 5000), 2, r'context\.json: "host" is "hhh'),
    ("context.json: zero cores", _edit("context.json", "topology", "cores", 0), 2, r'context\.json: topology, "cores" is 0'),
    ("context.json: a folder", lambda d: (os.remove(os.path.join(d, "context.json")), os.mkdir(os.path.join(d, "context.json"))),
     2, r"context\.json: is a folder"),
    ("replay.json: tok_s zero", _edit("replay.json", "runs", 0, "tok_s", 0), 2, r'replay\.json: runs\[0\], "tok_s" is 0'),
    ("replay.json: ms_per_token max 0", _edit("replay.json", "runs", 0, "ms_per_token", "max", 0), 2,
     r'replay\.json: runs\[0\]\.ms_per_token, "max" is 0'),
    ("replay.json: wait_share 2", _edit("replay.json", "runs", 1, "wait_share", 2), 2, r'replay\.json: runs\[1\], "wait_share" is 2'),
    ("replay.json: a negative busy time", _edit("replay.json", "runs", 0, "ops", 0, "threads", 0, "busy_us", -3), 2,
     r'replay\.json: runs\[0\]\.ops\[0\]\.threads\[0\], "busy_us" is -3'),
    ("replay.json: fewer probe samples than tokens", _replay(lambda o: o.update(probe_gbs_per_token=o["probe_gbs_per_token"][:1])),
     2, r'replay\.json: "probe_gbs_per_token" has 1 samples, expected one per token \(8\)'),
    ("replay.json: a probe sample of zero", _edit("replay.json", "probe_gbs_per_token", 2, 0), 2,
     r"replay\.json: probe_gbs_per_token\[2\] is 0"),
    ("replay.json: a ceiling that is not the median sample", _replay(lambda o: o.update(ceiling_gbs=2 * o["ceiling_gbs"])), 2,
     r'replay\.json: "ceiling_gbs" is [0-9.]+, but the median of "probe_gbs_per_token" is'),
    ("replay.json: a token above 100% without the run's flag", _edit("replay.json", "runs", 2, "ratio_above_1", False), 2,
     r'replay\.json: runs\[2\]: "ratio_above_1" is false but the highest of "ratio_per_token" is 1\.'),
    ("replay.json: an op above 100% without its flag", _replay(_unflag_op), 2,
     r'replay\.json: runs\[2\]\.ops\[\d+\]: "ratio_above_1" is false but "pct_ceiling" is 1\d\d'),
    ("replay.json: a ratio spread that is not the tokens'", _edit("replay.json", "runs", 0, "ratio", "max", 5), 2,
     r'replay\.json: runs\[0\]\.ratio, "max" is 5, but the max of "ratio_per_token" is'),
    ("replay.json: fewer overhead values than pairs",
     _replay(lambda o: o["timing_overhead"].update(pct_per_pair=o["timing_overhead"]["pct_per_pair"][:3])), 2,
     r'replay\.json: timing_overhead, "pct_per_pair" has 3 values, expected one per pair \(8\)'),
    ("replay.json: an overhead median that is not the pairs'", _edit("replay.json", "timing_overhead", "overhead_pct", 7),
     2, r'replay\.json: timing_overhead, "overhead_pct" is 7, but the median of "pct_per_pair" is'),
    ("replay.json: not within noise, with pairs on both sides of zero",
     _edit("replay.json", "timing_overhead", "within_noise", False), 2,
     r'replay\.json: timing_overhead: "within_noise" is false but the pairs range from -0\.4 to 1\.2'),
    ("replay.json: an older timing_overhead, one unpaired ratio",
     _edit("replay.json", "timing_overhead", {"dispatch": "static", "on_ms_per_token": 1.0, "off_ms_per_token": 1.1,
                                              "overhead_pct": -8.41, "on_min_ms_per_token": 0.9,
                                              "off_min_ms_per_token": 0.9}), 0, None),
    ("a host name with TeX in it ($\\frac$)", _edit("context.json", "host", "a$\\frac{$b"), 0, None),
    ("marked INCOMPLETE, otherwise whole", _incomplete, 0, None),
]


def _render_worker_init():
    """A worker of the broken-table cases: render in this process, with matplotlib imported once and no
    picture written (Figure.savefig does nothing), since these cases test what render refuses and says;
    test_run draws and checks every picture."""
    import matplotlib.figure
    matplotlib.figure.Figure.savefig = lambda self, *args, **kwargs: None
    matplotlib.figure.Figure.laid_out = matplotlib.figure.Figure.tight_layout
    import render  # noqa: F401


def _render_inprocess(d, lay_out):
    """(exit status, stdout, stderr) of render on run folder d, in this worker. A row that must be refused
    skips the layout pass (most of a render's time; it only moves what was drawn, from inputs already
    accepted); a row that must be drawn keeps it, since laying out text is where a bad label would fail."""
    import matplotlib.figure
    import render
    figure = matplotlib.figure.Figure
    figure.tight_layout = figure.laid_out if lay_out else (lambda self, *args, **kwargs: None)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = render.main([d, "--out", d + "-out"])
        except SystemExit as e:
            rc = e.code
        except Exception as e:   # would have been a traceback
            rc, err = 99, io.StringIO(f"Traceback: {type(e).__name__}: {e}")
    return rc, out.getvalue(), err.getvalue()


def _judge(row, rc, stdout, stderr):
    what, _, want_rc, pattern = row
    lines = [l for l in stderr.splitlines() if l.strip()]
    if pattern is None:
        ok = rc == want_rc and not lines
    else:
        ok = rc == want_rc and len(lines) == 1 and re.search(pattern, lines[0]) is not None
    return what, ok, f"exit {rc} (want {want_rc}), stderr {stderr.strip()[:300]!r}, stdout {stdout[-200:]!r}"


def test_broken_table(good, tmp):
    """Every row: one line on stderr matching its pattern (file and key), the expected exit, within 60 s.
    Two worker processes render the rows; the last row is rendered once more through plots/render itself."""
    import multiprocessing
    dirs = []
    for i, row in enumerate(BROKEN_RUNS):
        d = os.path.join(tmp, f"table-{i:02d}")
        shutil.copytree(good, d)
        row[1](d)
        dirs.append(d)
    pool = multiprocessing.get_context("fork").Pool(2, initializer=_render_worker_init)
    try:
        pending = [pool.apply_async(_render_inprocess, (d, row[2] == 0)) for row, d in zip(BROKEN_RUNS, dirs)]
        for row, job in zip(BROKEN_RUNS, pending):
            try:
                what, ok, detail = _judge(row, *job.get(timeout=60))
            except multiprocessing.TimeoutError:
                what, ok, detail = row[0], False, "hung: no exit within 60 s"
            check(f"render, {what}", ok, detail)
    finally:
        pool.terminate()
    p = subprocess.run([os.path.join(HERE, "render"), dirs[-1], "--out", dirs[-1] + "-again"], capture_output=True,
                       text=True, timeout=60)
    check("render says a run is INCOMPLETE", "INCOMPLETE" in p.stdout, p.stdout[-300:])


def test_launcher(good, tmp):
    p = subprocess.run([os.path.join(HERE, "python"), "-c", "import matplotlib; print(matplotlib.get_backend())"],
                       capture_output=True, text=True, env=dict(os.environ, MPLBACKEND=""))
    check("plots/python finds an interpreter with matplotlib", p.returncode == 0, p.stderr.strip())
    # A python3 without matplotlib (as the one first on PATH may be) must still draw: the scripts re-run
    # themselves under one that has it.
    other = shutil.which("python3")
    if other and subprocess.run([other, "-c", "import matplotlib"], capture_output=True).returncode != 0:
        p = subprocess.run([other, os.path.join(HERE, "scaling.py"), good, "--out", os.path.join(tmp, "other-python")],
                           capture_output=True, text=True)
        check(f"a script started by {other} (no matplotlib) still draws", p.returncode == 0, p.stderr.strip())


def reference_runs():
    """The run folders under results/ whose bench.json is schema 2 or 3; older ones are named and left out (their
    refusal is tested on synthetic copies in BROKEN_RUNS)."""
    runs = []
    for path in sorted(glob.glob(os.path.join(ROOT, "results", "*", "bench.json"))):
        try:
            schema = raw_json(os.path.dirname(path), "bench.json").get("schema")
        except (OSError, ValueError, AttributeError):
            schema = None
        if schema in (2, 3):
            runs.append(os.path.dirname(path))
        else:
            print(f"note: {os.path.relpath(path, ROOT)} is not schema 2 or 3 (written before the paired protocol): "
                  "not tested")
    return runs


def test_peers(tmp):
    """A run with a runtime's own types (ciot bench --peer): the layout chart and the roofline draw them beside
    ciot's kernels, named 'runtime MODULE:TYPE' and explained in the legend, and every check of a run still holds."""
    d = make_run.make(os.path.join(tmp, "synthetic-peers"), seed=5)
    doc = raw_json(d, "bench.json")
    added = []
    for op in ("gemv", "gemm"):
        # a runtime's gemm declares no multiply family: its rows have no compute roof, as a lookup kernel's
        top = max(c["threads"] for c in doc["cases"])   # the roofline names the points at the most threads
        base = next(c for c in doc["cases"] if c["op"] == op and c["pool"] == "persistent" and c["threads"] == top
                    and not c["kernel"].endswith("_ref") and c.get("compute_family") is None)
        peer = json.loads(json.dumps(base))
        peer.update(kernel="prism:q2_0", layout="q2_0", source="pq2_0", engine="peer", chosen=False,
                    peer={"module": "prism", "type": "q2_0", "engine": "ggml", "build": "a test", "activations": "q8_0",
                          "ternary": True})
        peer["name"] = base["name"].replace(base["kernel"], "prism:q2_0").rsplit("/", 1)[0] + "/runtime"
        doc["cases"].append(peer)
        added.append(peer)
    with open(os.path.join(d, "bench.json"), "w") as f:
        json.dump(doc, f)
    test_run(d, "synthetic-peers", tmp, render=False)
    out = os.path.join(tmp, "out-synthetic-peers")
    for plot in ("layouts", "roofline"):
        rows = load_table(os.path.join(tmp, f"synthetic-peers-{plot}.json"))
        peers = [r for r in rows if r.get("engine") == "peer" and r.get("shown", True) is not False]
        svg = open(os.path.join(out, f"synthetic-peers-{plot}.svg")).read()
        want = 1 if plot == "layouts" else len(added)   # the chart draws gemvs only
        check(f"peers {plot}: the runtime's rows are drawn ({len(peers)})", len(peers) == want)
        check(f"peers {plot}: named as the runtime's and explained in the legend",
              "runtime prism:q2_0" in svg.replace("\n", " ") or ">runtime<" in svg, "no 'runtime' label")
        check(f"peers {plot}: the legend explains the runtime's rows", "own type (ciot bench --peer" in svg)


def main():
    refs = sys.argv[1:] or reference_runs()
    with tempfile.TemporaryDirectory(prefix="ciot-plots-test-") as tmp:
        a = make_run.make(os.path.join(tmp, "synthetic-a"))
        b = make_run.make(os.path.join(tmp, "synthetic-b"), host="synth-b", commit="fedcba987654", seed=2,
                          threads=(1, 2, 4, 8), quick=True, compiler="GCC 12.2.0", dirty=True, speed=1.3,
                          with_replay=False, date="2026-02-03T04:05:06Z", cache_resident=True,
                          domains=[("L2 0", 4, [0, 1, 2, 3], 30.0), ("L2 1", 4, [4, 5, 6, 7], 31.0),
                                   ("L2 2", 4, [8, 9, 10, 11], 16.0), ("all", 12, list(range(12)), 60.0)])
        test_run(a, "synthetic", tmp, expect="mixed", inprocess=False)   # the command lines, as a user runs them
        test_run(b, "synthetic-cache-resident-no-replay", tmp, expect="all")
        test_compare(a, b, tmp)
        test_replay_warm(a, tmp)
        test_whole_token(tmp)
        test_peers(tmp)
        test_broken(a, tmp)
        test_broken_table(a, tmp)
        test_launcher(a, tmp)
        if not refs:
            print("note: no schema-2 or -3 reference run under results/ (results/*/bench.json); synthetic runs only")
        # plots/render draws the same plots again: through it, the synthetic runs, every folder given, and
        # of the reference runs the newest
        for i, r in enumerate(refs):
            test_run(os.path.abspath(r), f"reference-{i + 1}", tmp, render=bool(sys.argv[1:]) or i == len(refs) - 1)
        test_readable_checks_fail(refs[-1] if refs else a)
        if not sys.argv[1:]:
            check("a run with more series than a plot draws was among them (results/20261205-*, Zen 5)", big_runs > 0)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
