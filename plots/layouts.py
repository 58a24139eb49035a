#!/usr/bin/env python3
"""Gweights/s of every gemv kernel at each thread count, one panel per pool: median bars, min-max
whiskers over the repetitions, the read ceiling as a mark on each bar, the speed-up over the stock
kernel written on the bar.

The ceiling is in GB/s but layouts differ in bytes per weight, so each bar gets its own mark:
ceiling_GB/s (the in-process read probe at the same thread count, as bench.json records it) x
Gweights/s / GB/s of that kernel, i.e. the Gweights/s the layout would reach streaming weights at the
ceiling. Gemm kernels reuse each weight over the batch; they are on the roofline, not here."""
import sys

from mpl import plt
from plotkit import fmt, run_colors, report, run_main, save
from runfolder import InputError

PROG = "layouts"
POOL_ORDER = ("persistent", "spawn")


def rows_of(run):
    out = []
    for c in run.bench.cases:
        if c.op != "gemv":
            continue
        gw, gbs = c.stats("Gweights/s"), c.median("GB/s")
        bytes_per_weight = gbs / gw["median"]
        ceiling = c.median("ceiling_GB/s")
        stock = run.stock_for(c)
        out.append(dict(kernel=c.kernel, layout=c.layout, shape=c.shape, threads=c.threads, pool=c.pool,
                        reps=len(c.reps), gweights_s_min=gw["min"], gweights_s_median=gw["median"],
                        gweights_s_max=gw["max"], gb_s_median=gbs, bytes_per_weight=bytes_per_weight,
                        ceiling_gb_s=ceiling, ceiling_gweights_s=ceiling / bytes_per_weight,
                        stock_kernel=stock.kernel if stock else "",
                        speedup_vs_stock=gw["median"] / stock.median("Gweights/s") if stock else ""))
    if not out:
        raise InputError(f"{run.file('bench.json')}: no gemv benchmark to compare layouts with")
    return sorted(out, key=lambda r: (POOL_ORDER.index(r["pool"]), r["threads"], r["layout"], r["kernel"]))


def plot(run, base):
    rows = rows_of(run)
    pools = [p for p in POOL_ORDER if any(r["pool"] == p for r in rows)]
    kernels = sorted({r["kernel"] for r in rows}, key=lambda k: (k.split("_gemv_")[0], k))
    colors = run_colors(run)
    values = [r[k] for r in rows for k in ("gweights_s_min", "ceiling_gweights_s")]
    log = max(values) / min(values) > 20   # a reference kernel next to a fast one needs a log axis

    width_in = min(16, max(8, 2 + 0.4 * len(rows)))
    fig, axes = plt.subplots(1, len(pools), figsize=(width_in, 6.2), sharey=True, squeeze=False)
    width = 0.8 / len(kernels)
    for ax, pool in zip(axes[0], pools):
        threads = sorted({r["threads"] for r in rows if r["pool"] == pool})
        speedups = []
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
                          label="read ceiling in Gweights/s (ceiling GB/s / the layout's bytes per weight)"
                          if gi == 0 and ki == 0 else None)
                if r["speedup_vs_stock"] != "":
                    speedups.append((x, r["speedup_vs_stock"]))
        # speed-ups at the foot of the bars, where no whisker or ceiling mark can cover them
        for x, s in speedups:
            ax.text(x, 0, f"{s:.2f}x", transform=ax.get_xaxis_transform(), ha="center", va="bottom", rotation=90,
                    fontsize=7, bbox=dict(boxstyle="square,pad=0.15", fc="white", ec="none", alpha=0.85))
        ax.set_xticks(range(len(threads)))
        ax.set_xticklabels([f"{t} thread{'s' if t > 1 else ''}" for t in threads])
        ax.set_title(f"gemv {rows[0]['shape']}, {pool} pool", fontsize=9)
        ax.grid(True, axis="y", which="both", lw=0.3, alpha=0.5)
        if log:
            ax.set_yscale("log")
    top = max(max(r["gweights_s_max"], r["ceiling_gweights_s"]) for r in rows)
    bottom = min(r["gweights_s_min"] for r in rows)
    # room below the smallest bar for the speed-up labels
    axes[0][0].set_ylim(bottom / 6 if log else -0.12 * top, top * (3 if log else 1.15))
    axes[0][0].set_ylabel("Gweights/s (1e9 weights per second; median, whiskers min-max)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    ncol = max(1, min(4, len(labels), int(width_in / 3.6)))   # the ceiling's label is the long one
    fig.legend(handles, labels, loc="lower center", ncol=ncol, fontsize=8, frameon=False)
    stock = sorted({r["stock_kernel"] for r in rows if r["stock_kernel"]})
    note = (f"numbers at the foot of the bars: speed-up over the stock kernel ({', '.join(stock)}) at the same threads and pool"
            if stock else "no pq2_0 gemv kernel in this run: no speed-up over stock")
    fig.suptitle(run.title("Layouts") + "\n" + note, fontsize=10)
    fig.tight_layout(rect=(0, 0.02 + 0.035 * -(-len(labels) // ncol), 1, 1))
    report(PROG, save(fig, base))
    return rows


def main(argv=None):
    return run_main(PROG, __doc__.splitlines()[0], plot, argv)


if __name__ == "__main__":
    sys.exit(main())
