#!/usr/bin/env python3
"""Several run folders (other machines, other commits) on one chart: median Gweights/s of every kernel
case on the persistent pool, and per thread count the read probe paired with the benchmarks (median of
bench.json's probe samples on the persistent pool) and bw.json's read median, bars side by side per run
with min-max whiskers; the ratio to the first run (the baseline) is written on the bars. A case with a
repetition above 100% of its paired probe, or a cache-resident working set, is ringed and marked "!".

The ratio table covers every case of every pool, with a column naming the flags of each run's case; it is
printed as markdown and saved as compare.md and compare.csv beside the pictures (the first run folder, or
--out DIR). Conditions that differ between the runs (cpu, compiler, thread counts, quick or full, dirty
tree) are named in the legend."""
import csv
import os
import sys

from mpl import plt
from plotkit import ArgumentParser, flag_handles, flag_marks, guarded, plain_log_ticks, report, save, write_table
from runfolder import FLAG_NAMES, FLAGS, InputError, Run

PROG = "compare"


def conditions(run):
    c = run.context
    threads = ",".join(str(t) for t in sorted({k.threads for k in run.bench.cases}))
    return {"cpu": c.cpu, "compiler": c.compiler, "threads": threads, "run": "quick" if c.quick else "full",
            "tree": "dirty" if c.dirty else "clean"}


def run_labels(runs):
    """'run 1: host, commit, date' plus every condition that is not the same in all runs."""
    conds = [conditions(r) for r in runs]
    differ = [k for k in conds[0] if len({c[k] for c in conds}) > 1]
    labels = []
    for i, (r, c) in enumerate(zip(runs, conds)):
        extra = "; ".join(f"{k} {c[k]}" if k in ("cpu", "compiler", "threads") else c[k] for k in differ)
        labels.append(f"run {i + 1}: {r.context.host}, {r.context.commit}, {r.context.date}"
                      + (f" [{extra}]" if extra else ""))
    same = {k: conds[0][k] for k in conds[0] if k not in differ}
    return labels, differ, same


def case_key(c):
    return (c.kernel, c.shape, c.batch, c.threads, c.pool)


def case_name(key):
    kernel, shape, batch, threads, pool = key
    return f"{kernel} {shape}" + (f" b{batch}" if "_gemm_" in kernel else "") + f" {threads}T {pool}"


def long_rows(runs):
    """One row per run and case (kernels: Gweights/s; probe: read GB/s) with the ratio to run 1."""
    rows = []
    keys = []
    for run in runs:
        keys += [case_key(c) for c in run.bench.cases if case_key(c) not in keys]
    keys.sort(key=lambda k: (k[4] != "persistent", k[2] > 1, k[0], k[2], k[3]))
    for key in keys:
        vals = []
        for run in runs:
            c = next((c for c in run.bench.cases if case_key(c) == key), None)
            vals.append(dict(c.stats("gweights_s"), flags=",".join(c.flags)) if c else None)
        rows += _rows_for("kernel", case_name(key), "Gweights/s", vals, runs,
                          dict(zip(("kernel", "shape", "batch", "threads", "pool"), key)))
    threads = sorted({c.threads for run in runs for c in run.bench.cases if c.pool == "persistent"})
    for t in threads:
        rows += _rows_for("paired_probe", f"paired probe {t}T", "GB/s", [run.paired_ceiling(t) for run in runs],
                          runs, dict(threads=t))
    threads = sorted({p.threads for run in runs if run.has("bw.json") for p in run.bw if p.name == "read" and not p.domain})
    for t in threads:
        vals = []
        for run in runs:
            p = [p for p in run.bw if p.name == "read" and p.threads == t and not p.domain] if run.has("bw.json") else []
            vals.append(dict(p[0].stats, flags="cache_resident" if p[0].cache_resident else "") if p else None)
        rows += _rows_for("probe", f"bw.json read {t}T", "GB/s", vals, runs, dict(threads=t))
    return rows


def _rows_for(what, name, unit, vals, runs, fields):
    base = vals[0]["median"] if vals[0] else None
    out = []
    for i, (run, v) in enumerate(zip(runs, vals)):
        if v is None:
            continue
        out.append(dict(what=what, case=name, unit=unit, **fields, run=run.name, run_index=i + 1,
                        median=v["median"], min=v["min"], max=v["max"], flags=v.get("flags", ""),
                        ratio_to_run_1=v["median"] / base if base else ""))
    return out


def flag_note(flags):
    """'ratio above 100%, cache-resident' for a row's flags."""
    return ", ".join(FLAG_NAMES[f] for f in FLAGS if f in flags.split(","))


def ratio_table(rows, n):
    """Wide table: one line per case, each run's median and its ratio to run 1 ('-' where absent)."""
    header = (["case", "unit"] + [h for i in range(1, n + 1) for h in ([f"run {i}"] if i == 1 else [f"run {i}", f"run {i} / run 1"])]
              + ["flags"])
    lines = []
    for case in dict.fromkeys(r["case"] for r in rows):
        got = {r["run_index"]: r for r in rows if r["case"] == case}
        line = [case, next(iter(got.values()))["unit"]]
        for i in range(1, n + 1):
            r = got.get(i)
            line.append(f"{r['median']:.4g}" if r else "-")
            if i > 1:
                line.append(f"{r['ratio_to_run_1']:.3f}" if r and r["ratio_to_run_1"] != "" else "-")
        line.append("; ".join(f"run {i}: {flag_note(r['flags'])}" for i, r in sorted(got.items()) if r["flags"]))
        lines.append(line)
    return header, lines


def markdown(header, lines, labels, flag_texts):
    out = [f"- {l}" for l in labels] + ["", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(l) + " |" for l in lines]
    out += [""] + [f"- {t}" for t in flag_texts.values()]
    return "\n".join(out) + "\n"


def flag_texts(runs, rows):
    """{flag: its text} for the flags some row carries (the text of the first run that has it)."""
    have = {f for r in rows for f in r["flags"].split(",") if f}
    return {f: next(run.bench.flag_label(f) for run in runs) for f in FLAGS if f in have}


def plot(runs, base):
    labels, differ, same = run_labels(runs)
    rows = long_rows(runs)
    n = len(runs)
    colors = plt.get_cmap("tab10")
    # a case measured by one run only has nothing to be compared with: it stays in the table
    shared = {case for case in {r["case"] for r in rows} if sum(r["case"] == case for r in rows) > 1}
    panels = [("kernel", [r for r in rows if r["what"] == "kernel" and r["pool"] == "persistent" and r["case"] in shared],
               "Gweights/s (median, whiskers min-max)", "kernels, persistent pool"),
              ("probe", [r for r in rows if r["what"] in ("paired_probe", "probe") and r["case"] in shared],
               "GB/s (median, whiskers min-max)", "read probe: paired (bench.json) and ciot bw (bw.json)")]
    panels = [p for p in panels if p[1]]
    if not panels:
        raise InputError(f"{', '.join(r.path for r in runs)}: no kernel case or probe thread count measured in "
                         f"two of these runs, nothing to compare")
    counts = [len(dict.fromkeys(r["case"] for r in p[1])) for p in panels]
    slot = 0.16 * n + 0.12   # inches per case
    fig = plt.figure(figsize=(14, max(counts) * slot + 2.6 + 0.2 * (n + 2)))
    grid = fig.add_gridspec(2, len(panels), width_ratios=[3, 1.3][:len(panels)],
                            height_ratios=[min(counts), max(counts) - min(counts) + 0.001])
    for i, ((what, prow, xlabel, title), count) in enumerate(zip(panels, counts)):
        # the same bar thickness in every panel: a short panel takes only the height it needs
        ax = fig.add_subplot(grid[:, i] if count == max(counts) else grid[0, i])
        cases = list(dict.fromkeys(r["case"] for r in prow))
        h = 0.8 / n
        for r in prow:
            y = cases.index(r["case"]) + (r["run_index"] - 1 - (n - 1) / 2) * h
            ax.barh(y, r["median"], h * 0.9, color=colors(r["run_index"] - 1),
                    xerr=[[r["median"] - r["min"]], [r["max"] - r["median"]]], error_kw=dict(lw=0.7, capsize=1.5))
            flags = [f for f in r["flags"].split(",") if f]
            flag_marks(ax, r["median"], y, flags, size=6)
            if r["run_index"] > 1 and r["ratio_to_run_1"] != "":
                ax.text(r["max"], y, f" {r['ratio_to_run_1']:.2f}x" + (" !" if flags else ""), va="center", fontsize=6.5)
            elif flags:
                ax.text(r["max"], y, " !", va="center", fontsize=6.5)
        ax.set_yticks(range(len(cases)), cases, fontsize=7.5)
        ax.set_ylim(len(cases) - 0.5, -0.5)
        vals = [r["min"] for r in prow] + [r["max"] for r in prow]
        if max(vals) / min(vals) > 20:
            ax.set_xscale("log")
            plain_log_ticks(ax.xaxis)
            ax.set_xlim(min(vals) / 1.5, max(vals) * 3)
        else:
            ax.set_xlim(0, max(vals) * 1.2)
        ax.set_xlabel(xlabel)
        ax.set_title(title, fontsize=9)
        ax.grid(True, axis="x", which="both", lw=0.3, alpha=0.5)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colors(i), label=l) for i, l in enumerate(labels)]
    handles += flag_handles(flag_texts(runs, [r for p in panels for r in p[1]]))
    fig.legend(handles=handles, loc="lower center", fontsize=8, frameon=False, ncol=1)
    note = "; ".join(([f"differs between the runs: {', '.join(differ)}"] if differ else []) +
                     ([f"same in all: {', '.join(f'{k} {v}' if k in ('cpu', 'compiler', 'threads') else v for k, v in same.items())}"]
                      if same else []))
    fig.suptitle(f"Compare: {n} runs, ratios to run 1 written on the bars (cases one run lacks: table only)\n{note}",
                 fontsize=10)
    height = fig.get_figheight()
    fig.tight_layout(rect=(0, (0.15 + 0.19 * len(handles)) / height, 1, 1 - 0.36 / height))
    report(PROG, save(fig, base))
    return rows, labels


def main(argv=None):
    p = ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="two or more run folders; the first is the baseline")
    p.add_argument("--out", metavar="DIR", help="where to write compare.{png,svg,md,csv} (default: the first run folder)")
    p.add_argument("--table", metavar="FILE", help="also write the plotted values (one row per run and case) as CSV or JSON")
    args = p.parse_args(argv)
    if len(args.runs) < 2:
        p.error("needs at least two run folders (the first is the baseline)")
    if args.table and not args.table.endswith((".csv", ".json")):
        p.error(f"--table {args.table}: the name must end in .csv or .json")

    return guarded(PROG, lambda: write_all([Run(path) for path in args.runs], args.out, args.table))


def write_all(runs, out=None, table=None):
    """The chart, compare.md and compare.csv into out (default: the first run folder), the markdown on stdout."""
    out = out or runs[0].path
    os.makedirs(out, exist_ok=True)
    rows, labels = plot(runs, os.path.join(out, PROG))
    header, lines = ratio_table(rows, len(runs))
    md = markdown(header, lines, labels, flag_texts(runs, rows))
    print(md, end="")
    with open(os.path.join(out, "compare.md"), "w") as f:
        f.write(md)
    with open(os.path.join(out, "compare.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(lines)
    if table:
        write_table(table, rows)


if __name__ == "__main__":
    sys.exit(main())
