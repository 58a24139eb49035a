#!/usr/bin/env python3
"""Tests of plots/: every script on a synthetic run folder and on the committed reference runs
(results/*/bench.json, or the run folders given as arguments). The values each script says it plotted
(--table) are compared with the raw JSON, read here independently of runfolder.py; broken inputs must
give one line naming the file and a non-zero exit, never a traceback.

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

PER_RUN = {"roofline": "roofline.py", "layouts": "layouts.py", "scaling": "scaling.py", "profile": "op_profile.py"}
passed, failed = 0, 0


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

def raw_bench(run_dir):
    """run_name -> {"reps": [entry...], "agg": {name: entry}} for the cases without errors."""
    with open(os.path.join(run_dir, "bench.json")) as f:
        d = json.load(f)
    out = {}
    for e in d["benchmarks"]:
        if e.get("error_occurred") or e["run_name"].startswith("pool_empty_job/"):
            continue   # an error, or the pools' own cost per empty job (not a kernel)
        c = out.setdefault(e["run_name"], {"reps": [], "agg": {}})
        if e["run_type"] == "iteration":
            c["reps"].append(e)
        else:
            c["agg"][e["aggregate_name"]] = e
    return out


def raw_stats(case, counter):
    vals = [e[counter] for e in case["reps"]]
    if vals:
        return min(vals), statistics.median(vals), max(vals)
    m = case["agg"]["median"][counter]
    return case["agg"].get("min", {}).get(counter, m), m, case["agg"].get("max", {}).get(counter, m)


def name_fields(run_name):
    toks = run_name.split("/")
    f = {"kernel": toks[0], "shape": toks[1], "batch": 1}
    for t in toks[2:]:
        if t.startswith(("threads:", "batch:")):
            f[t.split(":")[0]] = int(t.split(":")[1])
        elif t in ("persistent", "spawn"):
            f["pool"] = t
    return f


def find_case(bench, **want):
    hits = [c for n, c in bench.items() if all(name_fields(n).get(k) == v for k, v in want.items())]
    return hits[0] if len(hits) == 1 else None


def raw_json(run_dir, name):
    with open(os.path.join(run_dir, name)) as f:
        return json.load(f)


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


def check_roofline(run_dir, rows):
    bench = raw_bench(run_dir)
    bw, comp = raw_json(run_dir, "bw.json"), raw_json(run_dir, "compute.json")
    bad = []
    points = [r for r in rows if r["what"] == "point"]
    for r in points:
        c = find_case(bench, kernel=r["kernel"], shape=r["shape"], batch=r["batch"], threads=r["threads"], pool="persistent")
        gw, gbs = raw_stats(c, "Gweights/s")[1], raw_stats(c, "GB/s")[1]
        if not (close(r["gops"], 2 * gw) and close(r["ops_per_byte"], 2 * gw / gbs)):
            bad.append(r["kernel"])
    n_persistent = sum(1 for n in bench if name_fields(n)["pool"] == "persistent")
    check("roofline: one point per kernel x shape x batch x threads (persistent)", len(points) == n_persistent,
          f"{len(points)} points, {n_persistent} cases")
    check("roofline: points = 2 x median Gweights/s and 2 x Gweights/s / GB/s", not bad, bad)
    bad = []
    for r in rows:
        if r["what"] == "read_roof":
            raw = [x["median_gbs"] for x in bw["results"] if x["kernel"] == "read" and x["threads"] == r["threads"]]
            bad += [] if raw and close(raw[0], r["read_gb_s"]) else [f"read {r['threads']}T"]
        if r["what"] == "compute_roof":
            raw = max(x["median_gops"] for x in comp["results"] if x["threads"] == r["threads"])
            bad += [] if close(raw, r["compute_gops"]) else [f"compute {r['threads']}T"]
    check("roofline: roofs = bw.json read median, best compute.json median GOPS", not bad, bad)


def check_layouts(run_dir, rows):
    bench = raw_bench(run_dir)
    bad = []
    for r in rows:
        c = find_case(bench, kernel=r["kernel"], threads=r["threads"], pool=r["pool"])
        lo, med, hi = raw_stats(c, "Gweights/s")
        ceiling = raw_stats(c, "ceiling_GB/s")[1]
        stock = [s for n, s in bench.items() if n.startswith("pq2_0_gemv") and name_fields(n)["threads"] == r["threads"]
                 and name_fields(n)["pool"] == r["pool"]]
        stock_med = max(raw_stats(s, "Gweights/s")[1] for s in stock) if stock else None
        ok = (close(r["gweights_s_min"], lo) and close(r["gweights_s_median"], med) and close(r["gweights_s_max"], hi)
              and close(r["ceiling_gb_s"], ceiling)
              and close(r["ceiling_gweights_s"], ceiling * med / raw_stats(c, "GB/s")[1])
              and (close(r["speedup_vs_stock"], med / stock_med) if stock else r["speedup_vs_stock"] == ""))
        if not ok:
            bad.append(f"{r['kernel']} {r['threads']}T {r['pool']}")
    n_gemv = sum(1 for n in bench if "_gemv_" in n)
    check("layouts: a bar per gemv kernel x threads x pool", len(rows) == n_gemv, f"{len(rows)} bars, {n_gemv} cases")
    check("layouts: min/median/max, ceiling and speed-up over stock from bench.json", not bad, bad)


def check_scaling(run_dir, rows):
    bench = raw_bench(run_dir)
    bw = raw_json(run_dir, "bw.json")
    bad = []
    for x in bw["results"]:
        r = [r for r in rows if r["series"] == f"probe {x['kernel']}" and r["threads"] == x["threads"]]
        if len(r) != 1 or not all(close(r[0][f"gb_s_{s}"], x[f"{s}_gbs"]) for s in ("min", "median", "max")):
            bad.append(f"probe {x['kernel']} {x['threads']}T")
    check("scaling: probe points = bw.json min/median/max", not bad, bad)
    bad = []
    kernel_rows = [r for r in rows if r["what"] == "kernel"]
    for r in kernel_rows:
        c = find_case(bench, kernel=r["kernel"], batch=r["batch"], threads=r["threads"], pool="persistent")
        ok = all(close(a, b) for a, b in zip((r["gb_s_min"], r["gb_s_median"], r["gb_s_max"]), raw_stats(c, "GB/s")))
        if not (ok and close(r["pct_ceiling_median"], raw_stats(c, "pct_ceiling")[1])):
            bad.append(r["series"])
    check("scaling: kernel points = bench.json GB/s and pct_ceiling", not bad and kernel_rows, bad)


def check_profile(run_dir, rows, top):
    rp = raw_json(run_dir, "replay.json")
    bad = []
    for d in rp["runs"]:
        mine = [r for r in rows if r["dispatch"] == d["dispatch"]]
        disp = [r for r in mine if r["what"] == "dispatch"]
        if len(disp) != 1 or not (close(disp[0]["tok_s"], d["tok_s"]) and close(disp[0]["bound_tok_s"], d["bound_tok_s"])
                                  and close(disp[0]["ms_per_token_median"], d["ms_per_token"]["median"])
                                  and close(disp[0]["wait_share"], d["wait_share"])):
            bad.append(f"{d['dispatch']} totals")
        sums = {}
        for op in d["ops"]:
            s = sums.setdefault(op["name"].rsplit(".", 1)[-1], [0.0, 0.0, 0.0])
            s[0] += op["wall_us"]
            s[1] += statistics.fmean(t["busy_us"] for t in op["threads"])
            s[2] += statistics.fmean(t["wait_us"] for t in op["threads"])
        for r in (r for r in mine if r["what"] == "op"):
            if not all(close(a, b) for a, b in zip((r["wall_us"], r["busy_us_mean"], r["wait_us_mean"]), sums[r["name"]])):
                bad.append(f"{d['dispatch']} {r['name']}")
        shown = [r for r in mine if r["what"] in ("op", "op_rest")]
        total = sum(s[0] for s in sums.values())
        if not close(sum(r["wall_us"] for r in shown), total):
            bad.append(f"{d['dispatch']}: the bars do not add up to the token")
        walls = [r["wall_us"] for r in mine if r["what"] == "op"]
        if walls != sorted(walls, reverse=True) or len(walls) > top:
            bad.append(f"{d['dispatch']}: not the slowest first")
    check("profile: per-op work and wait, tokens/s and bound from replay.json", not bad, bad)


CHECKS = {"roofline": check_roofline, "layouts": check_layouts, "scaling": check_scaling}


def test_run(run_dir, label, tmp):
    context = raw_json(run_dir, "context.json")
    out = os.path.join(tmp, "out-" + label)
    for plot, script in PER_RUN.items():
        if plot == "profile" and not os.path.exists(os.path.join(run_dir, "replay.json")):
            rc, _, err = run(script, run_dir, "--out", out)
            check(f"{label} {plot}: asked directly without replay.json, one clear error",
                  rc != 0 and "replay.json: missing" in err and "Traceback" not in err, f"rc {rc}, {err!r}")
            continue
        table = os.path.join(tmp, f"{label}-{plot}.json")
        args = [run_dir, "--out", out] + (["--top", "8"] if plot == "profile" else [])
        rc, _, err = run(script, *args, "--table", table)
        if not check(f"{label} {plot}: runs", rc == 0, err.strip()):
            continue
        check_pictures(f"{label} {plot}", os.path.join(out, f"{os.path.basename(run_dir)}-{plot}"), context)
        rows = load_table(table)
        if plot == "profile":
            check_profile(run_dir, rows, 8)
        else:
            CHECKS[plot](run_dir, rows)
        # the CSV form holds the same rows
        rc, _, _ = run(script, *args, "--table", table[:-5] + ".csv")
        with open(table[:-5] + ".csv") as f:
            check(f"{label} {plot}: --table CSV has the rows of the JSON", rc == 0 and len(list(csv.DictReader(f))) == len(rows))
    rc, _, err = _render(run_dir, out + "-render")
    pics = sorted(glob.glob(os.path.join(out + "-render", "*.png")))
    want = 4 if os.path.exists(os.path.join(run_dir, "replay.json")) else 3
    check(f"{label} render: every plot", rc == 0 and len(pics) == want, f"rc {rc}, {len(pics)} pictures, {err.strip()}")


def _render(run_dir, out):
    p = subprocess.run([os.path.join(HERE, "render"), run_dir, "--out", out], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


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
    bad = []
    for r in rows:
        if r["what"] != "kernel":
            continue
        c = find_case(benches[r["run_index"] - 1], kernel=r["kernel"], shape=r["shape"], batch=r["batch"],
                      threads=r["threads"], pool=r["pool"])
        base = find_case(benches[0], kernel=r["kernel"], shape=r["shape"], batch=r["batch"], threads=r["threads"], pool=r["pool"])
        med = raw_stats(c, "Gweights/s")[1]
        want_ratio = med / raw_stats(base, "Gweights/s")[1] if base else ""
        if not close(r["median"], med) or (want_ratio != "" and not close(r["ratio_to_run_1"], want_ratio)):
            bad.append(f"{r['case']} run {r['run_index']}")
    check("compare: medians and ratios to run 1 from bench.json", not bad and rows, bad)
    md = open(os.path.join(out, "compare.md")).read()
    check("compare: conditions that differ are named (compiler, threads, quick, dirty)",
          all(w in md for w in ("compiler GCC", "threads 1,2,4,8", "quick", "dirty")), md.splitlines()[:2])
    rc, _, err = run("compare.py", a)
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
        ("bench.json", "no benchmarks", lambda d: set_path(d, ["benchmarks"], KeyError)),
        ("bench.json", "a counter missing", lambda d: set_path(d, ["benchmarks", 0, "Gweights/s"], KeyError)),
        ("bench.json", "a name it cannot read", lambda d: set_path(d, ["benchmarks", 0, "run_name"], "nonsense")),
        ("bench.json", "GB/s of zero", lambda d: set_path(d, ["benchmarks", 0, "GB/s"], 0)),
        ("replay.json", "no runs", lambda d: set_path(d, ["runs"], [])),
        ("replay.json", "an op without threads", lambda d: set_path(d, ["runs", 0, "ops", 0, "threads"], KeyError)),
        ("replay.json", "tok_s null", lambda d: set_path(d, ["runs", 1, "tok_s"], None)),
    ]


NEEDS = {"context.json": "roofline.py", "bw.json": "scaling.py", "compute.json": "roofline.py",
         "bench.json": "layouts.py", "replay.json": "op_profile.py"}


def run_inprocess(script, *args):
    """main(argv) of a script in this process, (rc, stderr): the same checks as a subprocess for a tenth of
    the time, as nothing is drawn when the input is refused."""
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
    rc, _, err = _render(d, os.path.join(tmp, "broken-render"))
    one_clear_line("render with an empty bench.json", rc, err, "bench.json")
    rc, _, err = run("roofline.py", os.path.join(tmp, "no-such-run"))
    one_clear_line("a run folder that does not exist", rc, err, "no-such-run")
    rc, err = run_inprocess("roofline.py", good, "--table", os.path.join(tmp, "t.txt"))
    check("--table with an unknown extension is refused", rc != 0 and "Traceback" not in err, err)


# --- a table of broken run folders, through plots/render as a user runs it ---

def _edit(fname, *path_value):
    """A mutation setting obj[path...] = value in fname (value KeyError: delete it)."""
    *path, value = path_value

    def mutate(d):
        p = os.path.join(d, fname)
        obj = raw_json(d, fname)
        o = obj
        for k in path[:-1]:
            o = o[k]
        if value is KeyError:
            del o[path[-1]]
        else:
            o[path[-1]] = value
        with open(p, "w") as f:
            json.dump(obj, f)
    return mutate


def _each_bench(fn):
    """A mutation applying fn(entry) to every benchmark entry of bench.json."""
    def mutate(d):
        obj = raw_json(d, "bench.json")
        for e in obj["benchmarks"]:
            fn(e)
        with open(os.path.join(d, "bench.json"), "w") as f:
            json.dump(obj, f)
    return mutate


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
    def mutate(d):
        obj = raw_json(d, "bench.json")
        e = next(e for e in obj["benchmarks"] if e["run_type"] == "iteration" and "_gemv_" in e["run_name"])
        obj["benchmarks"] = [dict(e, run_name=f"t2p_gemv_avx2/{4 * (i + 1)}x256/threads:1/persistent") for i in range(n)]
        with open(os.path.join(d, "bench.json"), "w") as f:
            json.dump(obj, f)
    return mutate


def _aggregates_swapped(d):
    obj = raw_json(d, "bench.json")
    obj["benchmarks"] = [e for e in obj["benchmarks"] if e.get("run_type") == "aggregate"]
    for e in obj["benchmarks"]:
        if e.get("aggregate_name") == "min":
            e["GB/s"] *= 10
    with open(os.path.join(d, "bench.json"), "w") as f:
        json.dump(obj, f)


def _incomplete(d):
    with open(os.path.join(d, "INCOMPLETE"), "w") as f:
        f.write("This run folder is incomplete: ciot suite (pid 1) ...\n")


# (how the folder is broken, mutation, expected exit, pattern of the one stderr line; None: no stderr)
BROKEN_RUNS = [
    ("bw.json: a negative median", _edit("bw.json", "results", 0, "median_gbs", -5.0), 2,
     r'bw\.json: results\[0\], "median_gbs" is -5'),
    ("bw.json: a zero median", _edit("bw.json", "results", 1, "median_gbs", 0), 2, r'bw\.json: results\[1\], "median_gbs" is 0'),
    ("bw.json: min above median", _edit("bw.json", "results", 0, "min_gbs", 1e6), 2, r"bw\.json: results\[0\]: .*not in order"),
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
    ("bench.json: every ceiling zero", _each_bench(lambda e: e.update({"ceiling_GB/s": 0.0}) if "ceiling_GB/s" in e else None),
     2, r'bench\.json: benchmark ".*", "ceiling_GB/s" is 0'),
    ("bench.json: GB/s negative", _each_bench(lambda e: e.update({"GB/s": -1.0}) if "GB/s" in e else None), 2,
     r'bench\.json: benchmark ".*", "GB/s" is -1'),
    ("bench.json: pct_ceiling Infinity", _replace("bench.json", '"pct_ceiling": ', '"pct_ceiling": Infinity, "x": '), 2,
     r'bench\.json: benchmark ".*", "pct_ceiling" is Infinity'),
    ("bench.json: an entry that is a number", _edit("bench.json", "benchmarks", 0, 5), 2,
     r"bench\.json: benchmarks\[0\] is 5, expected an object"),
    ("bench.json: 5000 cases", _many_cases(5000), 2, r"bench\.json: more than 4096 benchmark cases"),
    ("bench.json: aggregates only, min above median", _aggregates_swapped, 2, r'bench\.json: benchmark ".*": the aggregates of "GB/s"'),
    ("bench.json: 70000 threads in a name",
     _each_bench(lambda e: e.update({"run_name": e["run_name"].replace("threads:1/", "threads:70000/")}) if "run_name" in e else None),
     2, r"bench\.json: .*cannot read the name"),
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
    ("a host name with TeX in it ($\\frac$)", _edit("context.json", "host", "a$\\frac{$b"), 0, None),
    ("marked INCOMPLETE, otherwise whole", _incomplete, 0, None),
]


def _render_case(good, tmp, i, row):
    what, mutate, want_rc, pattern = row
    d = os.path.join(tmp, f"table-{i:02d}")
    shutil.copytree(good, d)
    mutate(d)
    try:
        p = subprocess.run([os.path.join(HERE, "render"), d, "--out", d + "-out"], capture_output=True, text=True,
                           timeout=60)
    except subprocess.TimeoutExpired:
        return what, False, "hung: no exit within 60 s"
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    if pattern is None:
        ok = p.returncode == want_rc and not lines
    else:
        ok = p.returncode == want_rc and len(lines) == 1 and re.search(pattern, lines[0]) is not None
    return what, ok, f"exit {p.returncode} (want {want_rc}), stderr {p.stderr.strip()[:300]!r}, stdout {p.stdout[-200:]!r}"


def test_broken_table(good, tmp):
    """Every row: one line on stderr matching its pattern (file and key), the expected exit, within 60 s."""
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda a: _render_case(good, tmp, *a), enumerate(BROKEN_RUNS)))
    for what, ok, detail in results:
        check(f"render, {what}", ok, detail)
    d = os.path.join(tmp, f"table-{len(BROKEN_RUNS) - 1:02d}")
    p = subprocess.run([os.path.join(HERE, "render"), d, "--out", d + "-again"], capture_output=True, text=True, timeout=60)
    check("render says a run is INCOMPLETE", "INCOMPLETE" in p.stdout, p.stdout[-300:])


def test_aggregates_only(good, tmp):
    """--benchmark_report_aggregates_only leaves no repetitions: the figures come from the aggregates."""
    d = os.path.join(tmp, "aggregates-only")
    shutil.copytree(good, d)
    bench = raw_json(d, "bench.json")
    bench["benchmarks"] = [e for e in bench["benchmarks"] if e.get("run_type") == "aggregate"]
    with open(os.path.join(d, "bench.json"), "w") as f:
        json.dump(bench, f)
    table = os.path.join(tmp, "aggregates-only.json")
    rc, err = run_inprocess("layouts.py", d, "--out", os.path.join(tmp, "aggregates-out"), "--table", table)
    if check("aggregates-only bench.json: layouts runs", rc == 0, err):
        check_layouts(d, load_table(table))


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


def main():
    refs = sys.argv[1:] or sorted(os.path.dirname(p) for p in glob.glob(os.path.join(ROOT, "results", "*", "bench.json")))
    with tempfile.TemporaryDirectory(prefix="ciot-plots-test-") as tmp:
        a = make_run.make(os.path.join(tmp, "synthetic-a"))
        b = make_run.make(os.path.join(tmp, "synthetic-b"), host="synth-b", commit="fedcba987654", seed=2,
                          threads=(1, 2, 4, 8), quick=True, compiler="GCC 12.2.0", dirty=True, speed=1.3,
                          with_replay=False, date="2026-02-03T04:05:06Z")
        test_run(a, "synthetic", tmp)
        test_run(b, "synthetic-no-replay", tmp)
        test_compare(a, b, tmp)
        test_broken(a, tmp)
        test_broken_table(a, tmp)
        test_aggregates_only(a, tmp)
        test_launcher(a, tmp)
        if not refs:
            print("note: no reference run under results/ (results/*/bench.json); synthetic runs only")
        for i, r in enumerate(refs):
            test_run(os.path.abspath(r), f"reference-{i + 1}", tmp)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
