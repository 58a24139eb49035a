#!/usr/bin/python3
"""Smoke runs of ciot.exe under Wine that must write valid files.

usage: smoke.py suite|bw EMULATOR... CIOT.EXE
  suite: `ciot suite --quick --results DIR` exits 0 and leaves one run folder with summary.md, a summary.json
         and every other .json in it parsing as JSON, no INCOMPLETE mark and no temporary file;
  bw:    `ciot bw ... --json F` (one small read probe) exits 0 and F parses as JSON with the probe's results.
Prints one line saying what failed, or "ok"; exits 1 on failure."""
import json
import os
import re
import subprocess
import sys
import tempfile


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace")
    return p.returncode, p.stderr.strip().splitlines()[-1:] or [""]


def left_tmp(d):
    return [os.path.join(t, n) for t, dirs, files in os.walk(d) for n in files + dirs if re.search(r"\.tmp\.", n)]


def suite(ciot, d):
    code, last = run(ciot + ["suite", "--quick", "--results", "res"], d)
    if code != 0:
        return f"suite --quick exited {code}: {last[0]}"
    runs = os.listdir(os.path.join(d, "res"))
    if len(runs) != 1:
        return f"res holds {len(runs)} run folders, expected 1"
    top = os.path.join(d, "res", runs[0])
    names = os.listdir(top)
    if "INCOMPLETE" in names:
        return f"{runs[0]} is marked INCOMPLETE"
    for need in ("summary.md", "summary.json"):
        if need not in names or os.path.getsize(os.path.join(top, need)) == 0:
            return f"{runs[0]} has no {need} or it is empty"
    docs = [os.path.relpath(os.path.join(t, n), top) for t, _, files in os.walk(top) for n in files if n.endswith(".json")]
    for n in docs:
        try:
            with open(os.path.join(top, n)) as f:
                json.load(f)
        except (OSError, ValueError) as e:
            return f"{runs[0]}/{n} is no valid JSON: {e}"
    return f"left behind: {left_tmp(d)}" if left_tmp(d) else None


def bw(ciot, d):
    code, last = run(ciot + ["bw", "--size", "8M", "--threads", "1", "--reps", "1", "--ms", "1", "--kernels", "read",
                             "--json", "bw.json"], d)
    if code != 0:
        return f"bw exited {code}: {last[0]}"
    try:
        with open(os.path.join(d, "bw.json")) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        return f"bw.json is no valid JSON: {e}"
    if doc.get("probe") != "bw" or not doc.get("results"):
        return f"bw.json has no bw results (probe {doc.get('probe')!r}, {len(doc.get('results') or [])} results)"
    return f"left behind: {left_tmp(d)}" if left_tmp(d) else None


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("suite", "bw"):
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="ciot-windows-") as d:
        problem = (suite if sys.argv[1] == "suite" else bw)(sys.argv[2:], d)
    print(f"FAIL {sys.argv[1]}: {problem}" if problem else "ok")
    return 1 if problem else 0


if __name__ == "__main__":
    sys.exit(main())
