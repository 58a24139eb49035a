#!/usr/bin/env python3
"""Which layout of each source file reads its weights fastest: per source file and thread count, the fastest
gemv kernel of each layout on the persistent pool, with the paired read ceiling of that layout drawn over its bar.

One panel per source file (columns) and thread count (rows); in it one bar per layout (the source file's own
layout, 'stock', and its load-time repacks), the median Gweights/s of the fastest non-reference kernel of that
layout, whiskers min-max over the repetitions. Every repetition was measured beside a read-probe sample
(bench.json, results/SCHEMA.md); the ceiling is in GB/s, but layouts differ in bytes per weight, so each bar gets
its own black mark: the median of the case's paired probe samples / the layout's bytes per weight
(matrix_bytes / (rows x K)), the Gweights/s the layout would reach streaming its weights at the ceiling. Above
the bar: its Gweights/s and the median of the per-repetition ratios kernel GB/s / probe GB/s in %. A bar whose
case has a repetition above 100% or a cache-resident working set is ringed and its ratio written in red with
'!', with the flag's text in the legend. --all-kernels draws every gemv kernel instead, the scalar references
and the spawn pool included (log axis). Gemm kernels reuse each weight over the batch; they are on the
roofline, not here."""
import sys

from mpl import plt
from plotkit import (FLAG_STYLE, fastest_per_layout, family_color, flag_handles, flag_marks, flags_present, fmt,
                     is_reference, layout_family, plain_log_ticks, report, run_main, save, source_key)
from runfolder import InputError

PROG = "layouts"
PEER_COLOR = "0.72"                   # a runtime's own type (ciot bench --peer): grey, cross-hatched
POOL_ORDER = ("persistent", "spawn")
SLOT_IN = {False: 0.95, True: 0.34}   # inches of panel per bar: wide enough for its labels, horizontal or turned
PANEL_MIN_SLOTS = 2.6                 # a panel of one bar still holds its title
ROW_IN = {False: 3.3, True: 4.8}      # inches per row of panels (turned kernel names need more)


def rows_of(run):
    out = []
    for c in run.bench.cases:
        if c.op != "gemv":
            continue
        gw, ratio, probe = c.stats("gweights_s"), c.stats("ratio"), c.median("probe_gbs")
        stock = run.stock_for(c)
        out.append(dict(kernel=c.kernel, engine=c.engine, source=c.source, layout=c.layout, shape=c.shape, threads=c.threads,
                        pool=c.pool, reps=len(c.reps), gweights_s_min=gw["min"], gweights_s_median=gw["median"],
                        gweights_s_max=gw["max"], gb_s_median=c.median("kernel_gbs"),
                        bytes_per_weight=c.bytes_per_weight, ceiling_gb_s=probe,
                        ceiling_gweights_s=probe / c.bytes_per_weight,
                        ratio_min=ratio["min"], ratio_median=ratio["median"], ratio_max=ratio["max"],
                        flags=",".join(c.flags), stock_kernel=stock.kernel if stock else "",
                        speedup_vs_stock=gw["median"] / stock.median("gweights_s") if stock else ""))
    if not out:
        raise InputError(f"{run.file('bench.json')}: no gemv benchmark to compare layouts with")
    return sorted(out, key=lambda r: (POOL_ORDER.index(r["pool"]), r["threads"], source_key(r["source"]),
                                      r["layout"], r["kernel"]))


def mark_shown(run, rows, all_kernels):
    """Sets each row's 'shown': every row with all_kernels, else the fastest non-reference kernel per source
    file, layout, shape and threads on the persistent pool."""
    best = {(c.kernel, c.shape, c.threads, c.pool) for c in
            fastest_per_layout(c for c in run.bench.cases if c.op == "gemv" and c.pool == "persistent")}
    for r in rows:
        r["shown"] = all_kernels or (r["kernel"], r["shape"], r["threads"], r["pool"]) in best


def bar_order(r):
    """Within a panel: the stock layout first, then the repacks by name, a layout's kernels by name; the runtime's
    own types last."""
    return (r["engine"] == "peer", layout_family(r["layout"], r["source"]) != "stock", r["layout"], is_reference(r["kernel"]), r["kernel"])


def tick_label(r, all_kernels):
    if r["engine"] == "peer":
        return "runtime\n" + r["kernel"]
    if all_kernels:
        return r["kernel"]
    isa = r["kernel"].split("_gemv_", 1)[-1]
    return f"{r['layout']}\n{isa}"


def ratio_text(r):
    """'MED%': the paired ratio's median in percent; '!' marks a flagged bar."""
    return f"{fmt(100 * r['ratio_median'])}%" + (" !" if r["flags"] else "")


def bar_text(ax, x, r, all_kernels):
    """Gweights/s and % of the ceiling above the higher of the whisker and the ceiling mark."""
    flagged = bool(r["flags"])
    color = FLAG_STYLE[r["flags"].split(",")[0]]["color"] if flagged else "black"
    y = max(r["gweights_s_max"], r["ceiling_gweights_s"])
    if all_kernels:
        ax.annotate(f"{fmt(r['gweights_s_median'])} Gw/s  {ratio_text(r)}", (x, y), xytext=(0, 4),
                    textcoords="offset points", ha="center", va="bottom", rotation=90, fontsize=7.5, color=color)
        return
    ax.annotate(ratio_text(r), (x, y), xytext=(0, 4), textcoords="offset points", ha="center", va="bottom",
                fontsize=9.5, color=color, fontweight="bold" if flagged else "normal")
    ax.annotate(f"{fmt(r['gweights_s_median'])} Gw/s", (x, y), xytext=(0, 18), textcoords="offset points",
                ha="center", va="bottom", fontsize=9.5)


def draw_panel(ax, bars, all_kernels):
    for x, r in enumerate(bars):
        med = r["gweights_s_median"]
        ref, peer = is_reference(r["kernel"]), r["engine"] == "peer"
        if peer:
            ax.bar(x, med, 0.72, color=PEER_COLOR, hatch="xx", edgecolor="black", lw=0.8)
        else:
            ax.bar(x, med, 0.72, color=family_color(r["layout"], r["source"]), alpha=0.45 if ref else 1.0,
                   hatch="//" if ref else None, edgecolor="white" if not ref else "0.4", lw=0.5)
        ax.errorbar(x, med, yerr=[[med - r["gweights_s_min"]], [r["gweights_s_max"] - med]], fmt="none",
                    ecolor="black", elinewidth=0.9, capsize=3)
        ax.hlines(r["ceiling_gweights_s"], x - 0.46, x + 0.46, colors="black", lw=2.6, zorder=4)
        flag_marks(ax, x, med, [f for f in r["flags"].split(",") if f], size=11)
        bar_text(ax, x, r, all_kernels)
    ax.set_xticks(range(len(bars)))
    ax.set_xticklabels([tick_label(r, all_kernels) for r in bars], rotation=90 if all_kernels else 0,
                       fontsize=7.5 if all_kernels else 9)
    half = max(len(bars), PANEL_MIN_SLOTS) / 2   # the bars centred in a panel wider than they need
    ax.set_xlim((len(bars) - 1) / 2 - half, (len(bars) - 1) / 2 + half)
    ax.grid(True, axis="y", which="major", lw=0.4, alpha=0.6)
    ax.set_axisbelow(True)


def panels_of(drawn):
    """(row keys, column keys): rows are (pool, threads), columns (source file, shape)."""
    rows = sorted({(r["pool"], r["threads"]) for r in drawn}, key=lambda k: (POOL_ORDER.index(k[0]), k[1]))
    cols = sorted({(r["source"], r["shape"]) for r in drawn}, key=lambda k: (source_key(k[0]), k[1]))
    return rows, cols


def y_limits(drawn, log):
    top = max(max(r["gweights_s_max"], r["ceiling_gweights_s"]) for r in drawn)
    if log:
        return min(r["gweights_s_min"] for r in drawn) / 2, top * 60   # turned text: about two decades
    return 0, top * 1.32   # room above the tallest mark for its two lines of text


def hidden_note(rows, col):
    """What a panel leaves out by default: layouts of this source file with only a reference kernel."""
    source, shape = col
    only_ref = sorted({r["layout"] for r in rows if (r["source"], r["shape"]) == col} -
                      {r["layout"] for r in rows if (r["source"], r["shape"]) == col and not is_reference(r["kernel"])})
    return f"{', '.join(only_ref)}: reference only" if only_ref else ""


def plot(run, base, all_kernels=False):
    rows = rows_of(run)
    mark_shown(run, rows, all_kernels)
    drawn = [r for r in rows if r["shown"]]
    if not drawn:
        raise InputError(f"{run.file('bench.json')}: no gemv kernel but the scalar references on the persistent "
                         "pool (--all-kernels draws those)")
    prow, pcol = panels_of(drawn)
    bars = {(pr, pc): sorted((r for r in drawn if (r["pool"], r["threads"]) == pr and (r["source"], r["shape"]) == pc),
                             key=bar_order) for pr in prow for pc in pcol}
    slots = [max(PANEL_MIN_SLOTS, max(len(bars[(pr, pc)]) for pr in prow)) for pc in pcol]
    log = all_kernels and max(r["gweights_s_max"] for r in drawn) / min(r["gweights_s_min"] for r in drawn) > 20
    width_in = 1.4 + sum(slots) * SLOT_IN[all_kernels] + 0.35 * len(pcol)
    height_in = 1.9 + ROW_IN[all_kernels] * len(prow)
    fig, axes = plt.subplots(len(prow), len(pcol), figsize=(max(7.5, width_in), height_in), sharey="row",
                             squeeze=False, gridspec_kw=dict(width_ratios=slots))
    for i, pr in enumerate(prow):
        ylim = y_limits([r for r in drawn if (r["pool"], r["threads"]) == pr], log)
        for j, pc in enumerate(pcol):
            ax = axes[i][j]
            if log:
                ax.set_yscale("log")
                plain_log_ticks(ax.yaxis)
            ax.set_ylim(*ylim)
            draw_panel(ax, bars[(pr, pc)], all_kernels)
            pool, threads = pr
            title = (f"{pc[0].upper()}, {threads} thread{'s' if threads > 1 else ''}"
                     + (f"\n{pool} pool" if all_kernels else ""))
            note = "" if all_kernels else hidden_note(rows, pc)
            ax.set_title(title + (f"\n({note})" if note else ""), fontsize=10 if not note else 9)
        axes[i][0].set_ylabel(f"Gweights/s, {pr[1]} thread{'s' if pr[1] > 1 else ''}", fontsize=10)
    legend(fig, run, drawn, all_kernels)
    shapes = sorted({r["shape"] for r in drawn})
    what = ("every gemv kernel, the scalar references (hatched) included, both pools" if all_kernels else
            "the fastest kernel of each layout (persistent pool); plots/render --all-kernels draws every kernel")
    fig.suptitle(run.title("Layouts") + f"\ngemv {', '.join(shapes)}: {what}\n"
                 "above each bar: median Gweights/s and its % of the paired read ceiling (black mark)", fontsize=11)
    # the three title lines and the legend's rows kept off the panels (tight_layout does not count them)
    fig.tight_layout(rect=(0, 0.5 / height_in, 1, 1 - 0.75 / height_in))
    report(PROG, save(fig, base))
    return rows


def legend(fig, run, drawn, all_kernels):
    from matplotlib.lines import Line2D
    handles = [Line2D([], [], color="black", lw=2.6,
                      label="paired read ceiling: median probe GB/s / the layout's bytes per weight"),
               Line2D([], [], color="black", lw=0.9, marker="_", ms=8, label="whiskers: min-max of the repetitions")]
    if any(r["engine"] == "peer" for r in drawn):
        from matplotlib.patches import Patch
        handles.append(Patch(facecolor=PEER_COLOR, hatch="xx", edgecolor="black",
                             label="the runtime's own type (ciot bench --peer), timed by the same protocol"))
    handles += flag_handles(flags_present(run, drawn))
    fig.legend(handles=handles, loc="lower center", ncol=min(2, len(handles)), fontsize=9, frameon=False)


def main(argv=None):
    return run_main(PROG, __doc__.splitlines()[0], plot, argv, all_kernels=True)


if __name__ == "__main__":
    sys.exit(main())
