#!/usr/bin/env python3
"""Roofline of one run: GOPS against operations per byte of weight traffic, under the paired read probe's
roof (slanted: probe GB/s x ops/byte) and the compute probe's flat roof (fastest int8 family), per thread count;
with the compute samples bench paired with the gemm cases, per family, as the flat roofs those cases are judged by.

A point is one kernel x shape x batch x threads on the persistent pool: GOPS = 2 x Gweights/s and
ops/byte = 2 x Gweights/s / GB/s (GB/s counts the packed weight bytes, so for a gemm the bytes are
shared by the batch), all medians of the repetitions in bench.json. The read roof at T threads is the
median of every paired probe sample of the persistent-pool cases at T threads (bench.json), the ceiling
each repetition was measured against; the compute roof is compute.json's fastest median; a gemm case's own
compute roof (schema 3) is the median of the compute samples of its kernel's family (the instruction sequence
the kernel declares it issues, named with its instructions and the kernels it judges) paired with the gemm cases
at T threads, drawn thin and purple (a lookup or scalar gemm has none: its point stands under the read roof
alone). A point whose case has a flagged repetition, or a cache-resident working set, is ringed. In a run of
more series than labels can name (plotkit.leading_series) every point is drawn, but only the fastest kernel per
source file, op and batch, and the stock gemv, in colour and named; the others are small grey dots."""
import statistics
import sys
import textwrap

from mpl import plt
from plotkit import (LabelPlacer, flag_handles, flag_marks, flags_present, fmt, leading_series, plain_log_ticks, report,
                     run_colors, run_main, save, shown_note)
from runfolder import InputError

PROG = "roofline"
THREAD_STYLES = ["-", "--", ":", "-."]
KERNELS_LISTED = 4   # a paired compute roof's legend entry names its kernels up to this many, then counts them
LEGEND_WIDTH = 150   # characters of a legend line at fontsize 8 that the 11-inch figure holds
MARKERS = {"gemv": "o", "gemm": "s"}


def points_of(run):
    out = []
    for c in run.bench.cases:
        if c.pool != "persistent":
            continue
        gw, gbs = c.median("gweights_s"), c.median("kernel_gbs")
        roof = c.roof_stats()
        out.append(dict(what="point", kernel=c.kernel, op=c.op, shape=c.shape, batch=c.batch, threads=c.threads,
                        pool=c.pool, gweights_s=gw, gb_s=gbs, ops_per_byte=2 * gw / gbs, gops=2 * gw,
                        ratio_median=c.median("ratio"), roof=c.roof_note,
                        roof_ratio_median=roof["median"] if roof else "", flags=",".join(c.flags)))
    if not out:
        raise InputError(f"{run.file('bench.json')}: no benchmark on the persistent pool to place on the roofline")
    return sorted(out, key=lambda p: (p["kernel"], p["shape"], p["batch"], p["threads"]))


def roofs_of(run, threads):
    out = []
    for t in threads:
        read = run.paired_ceiling(t)
        comp = run.compute_roof(t)
        if comp is None:
            raise InputError(f"{run.file('compute.json')}: no result at {t} threads (bench.json has {t})")
        out.append(dict(what="read_roof", threads=t, read_gb_s=read["median"], probe_samples=read["samples"],
                        probe_min=read["min"], probe_max=read["max"]))
        out.append(dict(what="compute_roof", threads=t, family=comp[0], instruction=comp[1], compute_gops=comp[2]))
        for fam in sorted({c.compute_family for c in run.bench.cases if c.compute_family and c.threads == t
                           and c.pool == "persistent"}):
            samples = run.bench.paired_compute(fam, t)
            probe = [r.note for r in run.compute if r.name == fam]
            kernels = sorted({c.kernel for c in run.bench.cases if c.compute_family == fam and c.threads == t
                              and c.pool == "persistent"})
            out.append(dict(what="paired_compute_roof", threads=t, family=fam,
                            instruction=probe[0] if probe else "", kernels=" ".join(kernels),
                            compute_gops=2 * statistics.median(samples), samples=len(samples)))
    return out


def plot(run, base):
    points = points_of(run)
    threads = sorted({p["threads"] for p in points})
    roofs = roofs_of(run, threads)
    read = {r["threads"]: r["read_gb_s"] for r in roofs if r["what"] == "read_roof"}
    samples = {r["threads"]: r["probe_samples"] for r in roofs if r["what"] == "read_roof"}
    comp = {r["threads"]: r for r in roofs if r["what"] == "compute_roof"}
    paired = [r for r in roofs if r["what"] == "paired_compute_roof"]

    # x range: every point and every ridge (where the roofs meet), with a margin of 2x each side
    ridges = [comp[t]["compute_gops"] / read[t] for t in threads]
    xs = [p["ops_per_byte"] for p in points] + ridges
    x0, x1 = min(xs) / 4, max(xs) * 4
    ys = [p["gops"] for p in points] + [read[t] * x0 for t in threads]
    y0, y1 = min(ys) / 3, max([r["compute_gops"] for r in comp.values()] + [r["compute_gops"] for r in paired]
                              + [p["gops"] for p in points]) * 3

    fig, ax = plt.subplots(figsize=(11, 7.5))
    roof_lines = []
    colors = run_colors(run)
    shown = leading_series(run)
    for p in points:
        p["shown"] = shown is None or (p["kernel"], p["shape"], p["batch"]) in shown
    named = [p for p in points if p["shown"]]
    for i, t in enumerate(threads):
        style = THREAD_STYLES[i % len(THREAD_STYLES)]
        ridge = comp[t]["compute_gops"] / read[t]
        roof_x = [x0, ridge, x1]
        roof_y = [read[t] * x0, comp[t]["compute_gops"], comp[t]["compute_gops"]]
        roof_lines += ax.plot(roof_x, roof_y, style, color="0.25", lw=1.3,
                label=f"{t} thread{'s' if t > 1 else ''} (T): paired read probe median {fmt(read[t])} GB/s "
                      f"({samples[t]} samples); "
                      f"{comp[t]['family']} ({comp[t]['instruction']}) {fmt(comp[t]['compute_gops'])} GOPS")
    for r in paired:   # from its own ridge on: where the gemm cases of the family are compute-bound
        style = THREAD_STYLES[threads.index(r["threads"]) % len(THREAD_STYLES)]
        roof_lines += ax.plot([r["compute_gops"] / read[r["threads"]], x1], [r["compute_gops"]] * 2, style,
                              color="purple", lw=0.9,
                              label=f"{r['threads']}T: {r['family']}"
                                    f"{' (' + r['instruction'] + ')' if r['instruction'] else ''} compute samples "
                                    f"paired with the gemm cases of {judged(r['kernels'])}, "
                                    f"median {fmt(r['compute_gops'])} GOPS ({r['samples']} samples)")
    for p in points:
        if not p["shown"]:   # drawn under the named ones, unlabelled
            ax.plot(p["ops_per_byte"], p["gops"], MARKERS[p["op"]], color="0.75", ms=3, mec="0.55", mew=0.3, zorder=1.5)
    for p in named:
        ax.plot(p["ops_per_byte"], p["gops"], MARKERS[p["op"]], color=colors[p["kernel"]], ms=6, mec="black", mew=0.4)
        flag_marks(ax, p["ops_per_byte"], p["gops"], [f for f in p["flags"].split(",") if f])
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_ticks(ax.xaxis, ax.yaxis)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_xlabel("operations per byte of weight traffic (2 ops per weight per activation row / bytes per weight)")
    ax.set_ylabel("GOPS (int8 operations, 1e9 per second)")
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    # marker legend: shapes for gemv / gemm beside the roofs
    for op in sorted({p["op"] for p in points}):
        ax.plot([], [], MARKERS[op], color="white", mec="black", label=op + " (persistent pool, median)")
    if shown is not None:
        ax.plot([], [], "o", color="0.75", mec="0.55", ms=3, label="the other kernels' points, unlabelled")
    handles, labels = ax.get_legend_handles_labels()
    labels = [textwrap.fill(label, LEGEND_WIDTH, subsequent_indent="    ") for label in labels]
    flags = flag_handles(flags_present(run, points))   # one line each: the flags' texts are short
    handles, labels = handles + flags, labels + [h.get_label() for h in flags]
    lines = sum(label.count("\n") + 1 for label in labels)
    fig.legend(handles=handles, labels=labels, loc="lower center", fontsize=8, ncol=1, frameon=False)
    ax.set_title(run.title("Roofline") + "\nread roofs: median of the paired probe samples of the persistent-pool "
                 "cases (bench.json); compute roofs: compute.json" + ("" if shown is None else "\n" + shown_note(run, shown)),
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.015 + 0.022 * lines, 1, 1))
    label_points(ax, named, colors, roof_lines)
    report(PROG, save(fig, base))
    return points + roofs


def judged(kernels):
    """The kernels a paired compute roof judges, for its legend entry: named when few, counted when many."""
    names = kernels.split()
    return " ".join(names) if len(names) <= KERNELS_LISTED else f"{len(names)} kernels (the table names them)"


def label_points(ax, points, colors, roof_lines):
    """Each point gets its thread count right beside it; each kernel x shape x batch its name once, by its
    fastest point: short labels find room where 20 full ones would not."""
    placer = LabelPlacer(ax, [(p["ops_per_byte"], p["gops"]) for p in points], avoid=roof_lines)
    for p in points:
        placer.add(p["ops_per_byte"], p["gops"], f"{p['threads']}T", colors[p["kernel"]], fontsize=6.5, radii=(4, 9, 15))
    groups = {}
    for p in points:
        key = (p["kernel"], p["shape"], p["batch"])
        if key not in groups or p["gops"] > groups[key]["gops"]:
            groups[key] = p
    for (kernel, shape, batch), p in sorted(groups.items(), key=lambda kv: -kv[1]["gops"]):
        name = f"{kernel} {shape}" + (f" batch {batch}" if p["op"] == "gemm" else "")
        placer.add(p["ops_per_byte"], p["gops"], name, colors[kernel], fontsize=7.5, radii=(10, 20, 32, 46, 62, 80))


def main(argv=None):
    return run_main(PROG, __doc__.splitlines()[0], plot, argv)


if __name__ == "__main__":
    sys.exit(main())
