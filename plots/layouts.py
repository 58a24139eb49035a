#!/usr/bin/env python3
"""Gweights/s of every gemv kernel at each thread count, one panel per pool: median bars, min-max
whiskers over the repetitions, the paired read ceiling as a mark on each bar, the paired ratio above it
and the speed-up over the stock kernel at its foot.

Every repetition of a case was measured beside a read-probe sample (bench.json, results/SCHEMA.md). The
ceiling is in GB/s but layouts differ in bytes per weight, so each bar gets its own mark: the median of
the case's paired probe samples / the layout's bytes per weight (matrix_bytes / (rows x K)), i.e. the
Gweights/s the layout would reach streaming its weights at the ceiling. Above the bar: the median (min -
max) of the per-repetition ratios kernel GB/s / probe GB/s. A bar whose case has a repetition above 100%
or a cache-resident working set is ringed, with the flag's text in the legend. Gemm kernels reuse each
weight over the batch; they are on the roofline, not here."""
import sys

from mpl import plt
from plotkit import (FLAG_STYLE, flag_handles, flag_marks, flags_present, fmt, plain_log_ticks, report, run_colors,
                     run_main, save)
from runfolder import InputError

PROG = "layouts"
POOL_ORDER = ("persistent", "spawn")


def rows_of(run):
    out = []
    for c in run.bench.cases:
        if c.op != "gemv":
            continue
        gw, ratio, probe = c.stats("gweights_s"), c.stats("ratio"), c.median("probe_gbs")
        stock = run.stock_for(c)
        out.append(dict(kernel=c.kernel, layout=c.layout, shape=c.shape, threads=c.threads, pool=c.pool,
                        reps=len(c.reps), gweights_s_min=gw["min"], gweights_s_median=gw["median"],
                        gweights_s_max=gw["max"], gb_s_median=c.median("kernel_gbs"),
                        bytes_per_weight=c.bytes_per_weight, ceiling_gb_s=probe,
                        ceiling_gweights_s=probe / c.bytes_per_weight,
                        ratio_min=ratio["min"], ratio_median=ratio["median"], ratio_max=ratio["max"],
                        flags=",".join(c.flags), stock_kernel=stock.kernel if stock else "",
                        speedup_vs_stock=gw["median"] / stock.median("gweights_s") if stock else ""))
    if not out:
        raise InputError(f"{run.file('bench.json')}: no gemv benchmark to compare layouts with")
    return sorted(out, key=lambda r: (POOL_ORDER.index(r["pool"]), r["threads"], r["layout"], r["kernel"]))


def ratio_text(r):
    """'MED% (MIN-MAX)': the paired ratio's median (min - max) in percent; '!' marks a flagged bar."""
    return (f"{fmt(100 * r['ratio_median'])}% ({fmt(100 * r['ratio_min'])}-{fmt(100 * r['ratio_max'])})"
            + (" !" if r["flags"] else ""))


def plot(run, base):
    rows = rows_of(run)
    pools = [p for p in POOL_ORDER if any(r["pool"] == p for r in rows)]
    kernels = sorted({r["kernel"] for r in rows}, key=lambda k: (k.split("_gemv_")[0], k))
    colors = run_colors(run)
    values = [r[k] for r in rows for k in ("gweights_s_min", "ceiling_gweights_s")]
    log = max(values) / min(values) > 20   # a reference kernel next to a fast one needs a log axis
    top = max(max(r["gweights_s_max"], r["ceiling_gweights_s"]) for r in rows)
    bottom = min(r["gweights_s_min"] for r in rows)
    # room below the smallest bar for the speed-ups, above the tallest for the ratios
    ylim = (bottom / 8 if log else -0.14 * top, top * (30 if log else 1.6))

    width_in = min(18, max(8, 2 + 0.32 * len(rows)))
    fig, axes = plt.subplots(1, len(pools), figsize=(width_in, 7.4), sharey=True, squeeze=False)
    width = 0.8 / len(kernels)
    for ax, pool in zip(axes[0], pools):
        threads = sorted({r["threads"] for r in rows if r["pool"] == pool})
        ax.set_ylim(*ylim)
        if log:
            ax.set_yscale("log")
            plain_log_ticks(ax.yaxis)
        feet = []
        for gi, t in enumerate(threads):
            for ki, k in enumerate(kernels):
                r = next((r for r in rows if (r["pool"], r["threads"], r["kernel"]) == (pool, t, k)), None)
                if r is None:
                    continue
                x = gi + (ki - (len(kernels) - 1) / 2) * width
                med = r["gweights_s_median"]
                ax.bar(x, med, width * 0.92, color=colors[k], label=k if gi == 0 else None)
                ax.errorbar(x, med, yerr=[[med - r["gweights_s_min"]], [r["gweights_s_max"] - med]],
                            fmt="none", ecolor="black", elinewidth=0.8, capsize=2)
                ax.hlines(r["ceiling_gweights_s"], x - width * 0.4, x + width * 0.4, colors="black", lw=2,
                          label="paired read ceiling in Gweights/s (median probe GB/s / the layout's bytes per weight)"
                          if gi == 0 and ki == 0 else None)
                # the ratio above the higher of the whisker and the ceiling mark; a flag rings the bar's top
                flags = [f for f in r["flags"].split(",") if f]
                ax.annotate(ratio_text(r), (x, max(r["gweights_s_max"], r["ceiling_gweights_s"])), xytext=(0, 3),
                            textcoords="offset points", ha="center", va="bottom", rotation=90, fontsize=6.5,
                            color=FLAG_STYLE[flags[0]]["color"] if flags else "black")
                flag_marks(ax, x, med, flags, size=8)
                if r["speedup_vs_stock"] != "":
                    feet.append((x, r["speedup_vs_stock"]))
        # speed-ups at the foot of the bars, where no whisker or ceiling mark can cover them
        for x, s in feet:
            ax.text(x, 0, f"{s:.2f}x", transform=ax.get_xaxis_transform(), ha="center", va="bottom", rotation=90,
                    fontsize=7, bbox=dict(boxstyle="square,pad=0.15", fc="white", ec="none", alpha=0.85))
        ax.set_xticks(range(len(threads)))
        ax.set_xticklabels([f"{t} thread{'s' if t > 1 else ''}" for t in threads])
        ax.set_title(f"gemv {rows[0]['shape']}, {pool} pool", fontsize=9)
        ax.grid(True, axis="y", which="both", lw=0.3, alpha=0.5)
    axes[0][0].set_ylabel("Gweights/s (1e9 weights per second; median, whiskers min-max)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    handles += flag_handles(flags_present(run, rows))
    ncol = max(1, min(4, len(handles), int(width_in / 4.2)))   # the ceiling's label is the long one
    fig.legend(handles=handles, loc="lower center", ncol=ncol, fontsize=8, frameon=False)
    stock = sorted({r["stock_kernel"] for r in rows if r["stock_kernel"]})
    note = (f"at the foot of the bars: speed-up over the stock kernel ({', '.join(stock)}) at the same threads and pool"
            if stock else "no pq2_0 gemv kernel in this run: no speed-up over stock")
    fig.suptitle(run.title("Layouts") + "\nabove the bars: kernel GB/s / paired probe GB/s per repetition, median "
                 "(min-max), in %; ! = flagged (legend)\n" + note, fontsize=10)
    fig.tight_layout(rect=(0, 0.02 + 0.03 * -(-len(handles) // ncol), 1, 1))
    report(PROG, save(fig, base))
    return rows


def main(argv=None):
    return run_main(PROG, __doc__.splitlines()[0], plot, argv)


if __name__ == "__main__":
    sys.exit(main())
