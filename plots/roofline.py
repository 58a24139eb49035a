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

from mpl import plt
from plotkit import (LabelPlacer, flag_handles, flag_marks, flags_present, fmt, leading_pick, plain_log_ticks, report,
                     run_main, save, source_color)
from runfolder import InputError

PROG = "roofline"
MARKERS = {"gemv": "o", "gemm": "s"}
PEER_MARKER = "X"   # a runtime's own type (ciot bench --peer), edged in black


def points_of(run):
    out = []
    for c in run.bench.cases:
        if c.pool != "persistent":
            continue
        gw, gbs = c.median("gweights_s"), c.median("kernel_gbs")
        roof = c.roof_stats()
        out.append(dict(what="point", kernel=c.kernel, engine=c.engine, source=c.source, op=c.op, shape=c.shape, batch=c.batch, threads=c.threads,
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


def plot(run, base, all_kernels=False):
    points = points_of(run)
    threads = sorted({p["threads"] for p in points})
    roofs = roofs_of(run, threads)
    read = {r["threads"]: r for r in roofs if r["what"] == "read_roof"}
    comp = {r["threads"]: r for r in roofs if r["what"] == "compute_roof"}
    shown = leading_pick(run)
    for p in points:
        p["shown"] = (p["kernel"], p["shape"], p["batch"]) in shown or p["engine"] == "peer"
    named = [p for p in points if p["shown"]]
    others = [p for p in points if not p["shown"]] if all_kernels else []
    lines = roof_lines(run, named, read, comp, paired=[r for r in roofs if r["what"] == "paired_compute_roof"])

    # x range: every point drawn and every ridge, with room left of the points for their labels
    xs = [p["ops_per_byte"] for p in named + others] + [ln["ridge"] for ln in lines if ln["kind"] == "compute"]
    x0, x1 = min(xs) / 6, max(xs) * 5
    ys = [p["gops"] for p in named + others] + [ln["gops"] for ln in lines if ln["kind"] == "compute"]
    y0, y1 = min(ys) / 4, max(ys) * 4

    fig, ax = plt.subplots(figsize=(12, 8.5))
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_ticks(ax.xaxis, ax.yaxis)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    top = threads[-1]
    drawn_lines = draw_roofs(ax, lines, top, x0, x1)
    for p in others:   # under the named ones, unlabelled
        ax.plot(p["ops_per_byte"], p["gops"], MARKERS[p["op"]], color="0.78", ms=3.5, mec="0.55", mew=0.3, zorder=1.5)
    for p in named:
        color = source_color(p["source"])
        full = p["threads"] == top
        peer = p["engine"] == "peer"
        ax.plot(p["ops_per_byte"], p["gops"], PEER_MARKER if peer else MARKERS[p["op"]], color=color if full else "white",
                mec="black" if peer else color, ms=10 if full else 7, mew=1.4, zorder=3)
        flag_marks(ax, p["ops_per_byte"], p["gops"], [f for f in p["flags"].split(",") if f])
    ax.set_xlabel("operations per byte of weight traffic (2 per weight per activation row / bytes per weight)", fontsize=10)
    ax.set_ylabel("GOPS (int8 operations, 1e9 per second)", fontsize=10)
    ax.grid(True, which="major", lw=0.4, alpha=0.5)
    leg = ax.legend(handles=legend_handles(run, named, others, top, threads), loc="lower right", fontsize=8.5,
                    framealpha=0.95)
    what = ("every kernel (grey: not the fastest)" if all_kernels else
            "the fastest kernel per source file, op and batch, and the stock gemv; plots/render --all-kernels adds the rest")
    ax.set_title(run.title("Roofline") + f"\n{what}\nlabel: source file, kernel, % of its own roof (median of the "
                 "paired ratios) at the most threads; roofs: paired probe medians", fontsize=10.5)
    fig.tight_layout()
    placer = LabelPlacer(ax, [(p["ops_per_byte"], p["gops"]) for p in named + others], avoid=drawn_lines + [leg])
    label_roofs(placer, lines, x0, x1)
    label_points(placer, [p for p in named if p["threads"] == top])
    report(PROG, save(fig, base))
    return points + roofs


def roof_lines(run, named, read, comp, paired):
    """The roofs to draw: per thread count the read roof, and the compute roofs of the multiply families the
    named gemm points use (their paired samples), else compute.json's fastest family as the flat cap."""
    out = []
    families = {(p["threads"], c.compute_family) for p in named for c in run.bench.cases
                if c.compute_family and (c.kernel, c.shape, c.batch, c.threads, c.pool) ==
                (p["kernel"], p["shape"], p["batch"], p["threads"], "persistent")}
    for t in sorted(read):
        gbs = read[t]["read_gb_s"]
        caps = [dict(kind="compute", threads=t, gops=r["compute_gops"], name=r["family"], ridge=r["compute_gops"] / gbs)
                for r in paired if r["threads"] == t and (t, r["family"]) in families]
        if not caps:
            c = comp[t]
            caps = [dict(kind="compute", threads=t, gops=c["compute_gops"], name=f"peak {c['family']}",
                         ridge=c["compute_gops"] / gbs)]
        out.append(dict(kind="read", threads=t, gb_s=gbs, cap=max(c["gops"] for c in caps)))
        out += caps
    return out


def thread_word(t):
    return f"{t} thread{'s' if t > 1 else ''}"


def draw_roofs(ax, lines, top, x0, x1):
    """Each roof as a line (solid at the most threads, dashed below); sets each roof's 'artist'."""
    for ln in lines:
        style = "-" if ln["threads"] == top else "--"
        if ln["kind"] == "read":
            end = ln["cap"] / ln["gb_s"]
            ln["artist"], = ax.plot([x0, end], [ln["gb_s"] * x0, ln["cap"]], style, color="0.2", lw=1.5, zorder=2)
        else:
            ln["artist"], = ax.plot([ln["ridge"], x1], [ln["gops"]] * 2, style, color="purple", lw=1.3, zorder=2)
    return [ln["artist"] for ln in lines]


def label_roofs(placer, lines, x0, x1):
    """Each roof's name on the plot, by the roof: a read roof's under it, left of the points; a compute roof's
    above its right end."""
    for ln in lines:
        t = f"{ln['threads']}T"
        if ln["kind"] == "read":
            text, color = f"{t} read roof {fmt(ln['gb_s'])} GB/s", "0.15"
            spots = [x0 * (ln["cap"] / ln["gb_s"] / x0) ** f for f in (0.03, 0.1, 0.2, 0.3, 0.45, 0.6)]
            ys = [ln["gb_s"] * x for x in spots]
        else:
            text, color = f"{t} {ln['name']} {fmt(ln['gops'])} GOPS", "purple"
            spots = [x1 / 1.08, x1 / 3, x1 / 9]
            ys = [ln["gops"]] * len(spots)
        placer.add_on_line(ln["artist"], spots, ys, text, color, slanted=ln["kind"] == "read")


def label_points(placer, points):
    """Each point at the most threads named by its source file, kernel (and batch) and its % of its roof."""
    for p in sorted(points, key=lambda p: -p["gops"]):
        pct = f"{fmt(100 * p['roof_ratio_median'])}%" if p["roof_ratio_median"] != "" else "no roof"
        who = ("runtime " if p["engine"] == "peer" else f"{p['source'].upper()} ") + p["kernel"]
        name = who + (f" b{p['batch']}" if p["op"] == "gemm" else "") + f"  {pct}"
        placer.add(p["ops_per_byte"], p["gops"], name, source_color(p["source"]), fontsize=8.5,
                   radii=(8, 16, 28, 42, 60, 80, 105))


def legend_handles(run, named, others, top, threads):
    from matplotlib.lines import Line2D
    out = []
    for op in sorted({p["op"] for p in named}):
        out.append(Line2D([], [], ls="none", marker=MARKERS[op], mfc="0.3", mec="0.3", ms=7, label=op))
    if len(threads) > 1:
        fewer = ", ".join(map(str, threads[:-1]))
        out.append(Line2D([], [], ls="none", marker="o", mfc="white", mec="0.3", mew=1.4, ms=6,
                          label=f"hollow: {fewer} thread{'s' if fewer != '1' else ''} (dashed roofs)"))
    if others:
        out.append(Line2D([], [], ls="none", marker="o", color="0.78", mec="0.55", ms=4, label="the other kernels"))
    if any(p["engine"] == "peer" for p in named):
        out.append(Line2D([], [], ls="none", marker=PEER_MARKER, mfc="0.5", mec="black", mew=1.4, ms=9,
                          label="the runtime's own type (ciot bench --peer; label: runtime MODULE:TYPE)"))
    return out + flag_handles(flags_present(run, named + others))


def main(argv=None):
    return run_main(PROG, __doc__.splitlines()[0], plot, argv, all_kernels=True)


if __name__ == "__main__":
    sys.exit(main())
