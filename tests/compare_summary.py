"""scripts/compare's plan and summary, from made-up runs. The plan: whole runs alternate which build goes
first by round; kernel by kernel, each kernel's two runs are back to back with the first alternating, and a
kernel one build lacks runs alone. The summary: per round the ratio is new over base of the two runs' medians;
each source file's fastest kernel is picked per build and round on the persistent pool, whatever its name; the
--target verdict is met / not met / split by every round; a round missing one build's run is left out and
named; kernels only one build ran are named; a bad file or argument is one line and exit 2. Ends "N passed,
M failed"."""
import json, os, subprocess, sys, tempfile

from script_checks import Checks, load_script, script_path

script = script_path("compare")
compare = load_script("compare")
check = Checks()


def case(kernel, source, med, batch=4, threads=1, pool="persistent", probe=20.0):
    return {"kernel": kernel, "source": source, "op": "gemm", "rows": 64, "K": 256, "batch": batch,
            "threads": threads, "pool": pool,
            "summary": {"gweights_s": {"min": med * 0.9, "median": med, "max": med * 1.1},
                        "probe_gbs": {"min": probe, "median": probe, "max": probe}}}


def run_file(cases, cpu="Test CPU", features="avx2,fma"):
    return {"bench": "ciot", "context": {"cpu": cpu, "features": features}, "cases": cases}


def summarize(d, *extra):
    r = subprocess.run([sys.executable, script, "--summarize", d, *extra], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def row(text, *starts):
    """The table line that begins with these cells."""
    prefix = "| " + " | ".join(starts) + " |"
    hits = [line for line in text.splitlines() if line.startswith(prefix)]
    return hits[0] if len(hits) == 1 else None


# Round by round (base, new): pq2_0's fastest is old_a in base (the slower old_b beside it) and new_x in new;
# ptq1_0's only kernel doubles its rate in round 1 and gains a fifth in round 2; a spawn row faster than
# everything must not count; new_only runs in the new build only. Round 3 has only a base run (interrupted).
runs = {
    ("base", 1): [case("old_a", "pq2_0", 50), case("old_b", "pq2_0", 40), case("tl", "ptq1_0", 10),
                  case("old_a", "pq2_0", 900, pool="spawn")],
    ("new", 1): [case("new_x", "pq2_0", 100), case("old_b", "pq2_0", 45), case("tl", "ptq1_0", 20),
                 case("new_only", "pq2_0", 1), case("old_a", "pq2_0", 60)],
    ("new", 2): [case("new_x", "pq2_0", 90), case("old_b", "pq2_0", 30), case("tl", "ptq1_0", 12),
                 case("old_a", "pq2_0", 55)],
    ("base", 2): [case("old_a", "pq2_0", 60), case("old_b", "pq2_0", 20), case("tl", "ptq1_0", 10)],
    ("base", 3): [case("old_a", "pq2_0", 1000), case("tl", "ptq1_0", 1000)],
}

with tempfile.TemporaryDirectory() as d:
    manifest = {"base": {"rev": "v1", "commit": "a" * 40}, "new": {"rev": "working tree", "commit": None},
                "bench_args": ["--batches", "4"], "cpu_mask": None, "runs": []}
    for (b, r), cases in runs.items():
        name = f"{b}-{r}.json"
        with open(os.path.join(d, name), "w") as f:
            json.dump(run_file(cases), f)
        manifest["runs"].append({"build": b, "round": r, "json": name})
    with open(os.path.join(d, "compare.json"), "w") as f:
        json.dump(manifest, f)

    rc, out, err = summarize(d, "--target", "1.5")
    check(rc == 0, f"--summarize exits 0 (got {rc}: {err.strip()})")
    pq = row(out, "pq2_0", "gemm 64x256 b4", "1")
    check(pq is not None and "old_a: 50.0, 60.0" in pq and "new_x: 100.0, 90.0" in pq,
          "each build's fastest pq2_0 kernel per round, on the persistent pool only")
    check(pq is not None and "| 2.00, 1.50 |" in pq and pq.endswith("| met |"),
          "pq2_0's ratios 100/50 and 90/60, both reach 1.5: met")
    tl = row(out, "ptq1_0", "gemm 64x256 b4", "1")
    check(tl is not None and "| 2.00, 1.20 |" in tl and tl.endswith("| split |"),
          "ptq1_0: 2.00 reaches 1.5, 1.20 does not: split")
    a = row(out, "old_a", "gemm 64x256 b4", "1", "persistent")
    check(a is not None and "| 50.0, 60.0 | 60.0, 55.0 | 1.20, 0.92 | 1.06 |" in a,
          "a case both builds ran: medians per round, new over base, the median of the ratios")
    check(row(out, "old_a", "gemm 64x256 b4", "1", "spawn") is None,
          "a case one build ran in no round is not in the table")
    check("Kernels only the new build ran: new_only, new_x." in out, "kernels only the new build ran are named")
    check("Left out: round(s) 3" in out and "1000" not in out, "the round with one build's run only is left out")
    check("round 1: base 20.0, new 20.0" in out, "each run's paired read probe is listed")
    with open(os.path.join(d, "summary.md")) as f:
        check(f.read() == out, "summary.md holds what was printed")

    rc, out, _ = summarize(d, "--target", "2.5")
    pq = row(out, "pq2_0", "gemm 64x256 b4", "1")
    check(pq is not None and pq.endswith("| not met |"), "no round reaches 2.5: not met")
    rc, out, _ = summarize(d)
    pq = row(out, "pq2_0", "gemm 64x256 b4", "1")
    check(rc == 0 and pq is not None and pq.endswith("| 2.00, 1.50 |"), "without --target no verdict column")

    with open(os.path.join(d, "new-2.json"), "w") as f:
        f.write("{ not json")
    rc, out, err = summarize(d)
    check(rc == 2 and "new-2.json" in err and len(err.strip().splitlines()) == 1 and out == "",
          "a run file that is not JSON: one line naming it, exit 2")

with tempfile.TemporaryDirectory() as d:
    rc, _, err = summarize(d)
    check(rc == 2 and "compare.json" in err, "a folder without a comparison: exit 2")

# The plan.
check(compare.plan_runs(2, "run", None) == [(1, "base", None), (1, "new", None), (2, "new", None), (2, "base", None)],
      "whole runs: base first in round 1, new first in round 2")
plan = compare.plan_runs(2, "kernel", {"base": ["a", "b", "gone"], "new": ["a", "b", "added"]})
check(plan == [(1, "base", "a"), (1, "new", "a"), (1, "new", "b"), (1, "base", "b"), (1, "new", "added"),
               (1, "base", "gone"),
               (2, "new", "a"), (2, "base", "a"), (2, "base", "b"), (2, "new", "b"), (2, "new", "added"),
               (2, "base", "gone")],
      "kernel by kernel: pairs back to back, the first alternating by kernel and round; a kernel one build lacks alone")
check(compare.without_kernels(["--kernels", "a,b", "--threads", "1", "--kernels=c", "--reps", "3"])
      == ["--threads", "1", "--reps", "3"], "the kernel interleave drops the user's --kernels, both spellings")

# A kernel-interleaved comparison: one file per build, round and kernel; a file's cases of another kernel
# (a --kernels word matching two names) are not that run's; round 2 lacks one planned run and is left out.
with tempfile.TemporaryDirectory() as d:
    manifest = {"base": {"rev": "v1", "commit": "b" * 40}, "new": {"rev": "v2", "commit": "c" * 40},
                "bench_args": [], "interleave": "kernel", "planned": {"1": 4, "2": 4}, "runs": []}
    files = [(1, "base", "k_long", [case("k_long", "tq2_0", 40)]),
             (1, "new", "k_long", [case("k_long", "tq2_0", 20)]),
             (1, "new", "k", [case("k", "tq2_0", 30)]),
             (1, "base", "k", [case("k", "tq2_0", 10), case("k_long", "tq2_0", 500)]),
             (2, "base", "k", [case("k", "tq2_0", 10)]), (2, "new", "k", [case("k", "tq2_0", 10)]),
             (2, "new", "k_long", [case("k_long", "tq2_0", 10)])]
    for r, b, k, cases in files:
        name = f"{b}-{r}-{k}.json"
        with open(os.path.join(d, name), "w") as f:
            json.dump(run_file(cases), f)
        manifest["runs"].append({"build": b, "round": r, "kernel": k, "json": name})
    with open(os.path.join(d, "compare.json"), "w") as f:
        json.dump(manifest, f)
    rc, out, err = summarize(d)
    kl = row(out, "k_long", "gemm 64x256 b4", "1", "persistent")
    check(rc == 0 and kl is not None and "| 40.0 | 20.0 | 0.50 |" in kl,
          "a run's cases of another kernel are left out (k_long's 500 in k's file)")
    tq = row(out, "tq2_0", "gemm 64x256 b4", "1")
    check(tq is not None and "k_long: 40.0" in tq and "k: 30.0" in tq and "| 0.75 |" in tq,
          "the files of a round merge before each build's fastest is picked")
    check("Left out: round(s) 2" in out, "a round with a planned run missing is left out")

for args, what in ((["HEAD", "--json", "x.json"], "--json after BASE is refused"),
                   (["--rounds", "0", "HEAD"], "--rounds 0 is refused"),
                   (["--target", "-1", "HEAD"], "a target at or below 0 is refused"),
                   (["--target", "inf", "HEAD"], "an infinite target is refused"),
                   (["HEAD", "--benchmark_out=x.json"],
                    "--benchmark_out after BASE is refused (every run would write it)"),
                   (["no-such-commit-xyz"], "a name that is not a commit is refused"),
                   ([], "no commit named"),
                   (["--summarize", "/tmp", "HEAD"], "--summarize with a commit is refused"),
                   (["--interleave", "rows", "HEAD"], "an unknown interleave is refused")):
    try:  # a refusal is immediate; a broken one would go on to build, which the timeout ends
        r = subprocess.run([sys.executable, script, *args], capture_output=True, text=True, timeout=30)
        check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, f"{what} (exit {r.returncode})")
    except subprocess.TimeoutExpired:
        check(False, f"{what} (still running after 30 s)")

check.finish()
