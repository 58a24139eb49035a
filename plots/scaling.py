#!/usr/bin/env python3
"""GB/s against thread count: the DRAM probe (read, write, copy from bw.json) beside every kernel on the
persistent pool (bench.json), medians with min-max whiskers; a second panel gives each kernel's share
of the read ceiling measured in its own process (pct_ceiling)."""
import sys

from mpl import plt
from plotkit import report, run_colors, run_main, save
from runfolder import InputError

PROG = "scaling"
PROBE_STYLES = {"read": ("black", "-"), "write": ("0.45", "--"), "copy": ("0.6", ":")}
BATCH_STYLES = ["--", ":", "-."]   # gemm series of one kernel differ by batch


def series_name(c):
    return f"{c.kernel} b{c.batch}" if c.op == "gemm" else c.kernel


def rows_of(run):
    rows = []
    for p in run.bw:
        rows.append(dict(what="probe", series=f"probe {p.name}", threads=p.threads, traffic=p.note,
                         gb_s_min=p.stats["min"], gb_s_median=p.stats["median"], gb_s_max=p.stats["max"]))
    kernels = []
    for c in run.bench.cases:
        if c.pool != "persistent":
            continue
        s = c.stats("GB/s")
        kernels.append(dict(what="kernel", series=series_name(c), kernel=c.kernel, batch=c.batch, threads=c.threads, traffic="packed weight bytes",
                            gb_s_min=s["min"], gb_s_median=s["median"], gb_s_max=s["max"],
                            ceiling_gb_s=c.median("ceiling_GB/s"), pct_ceiling_median=c.median("pct_ceiling")))
    if not kernels:
        raise InputError(f"{run.file('bench.json')}: no benchmark on the persistent pool")
    return sorted(rows, key=lambda r: (r["series"], r["threads"])) + sorted(kernels, key=lambda r: (r["series"], r["threads"]))


def plot(run, base):
    rows = rows_of(run)
    colors = run_colors(run)
    batches = sorted({r["batch"] for r in rows if r["what"] == "kernel" and " b" in r["series"]})
    threads = sorted({r["threads"] for r in rows})
    gbs = [r[k] for r in rows for k in ("gb_s_min", "gb_s_max")]
    log_y = max(gbs) / min(gbs) > 20

    fig, (ax, axp) = plt.subplots(1, 2, figsize=(13, 6.4), gridspec_kw={"width_ratios": [3, 2]})
    for name in sorted({r["series"] for r in rows}, key=lambda s: (not s.startswith("probe "), s)):
        pts = sorted((r for r in rows if r["series"] == name), key=lambda r: r["threads"])
        t = [r["threads"] for r in pts]
        med = [r["gb_s_median"] for r in pts]
        err = [[m - r["gb_s_min"] for m, r in zip(med, pts)], [r["gb_s_max"] - m for m, r in zip(med, pts)]]
        if pts[0]["what"] == "probe":
            color, style = PROBE_STYLES.get(name.split()[1], ("0.3", "-."))
            ax.errorbar(t, med, yerr=err, color=color, ls=style, lw=2, capsize=3, marker="D", ms=4,
                        label=f"{name}: {pts[0]['traffic']}")
        else:
            color = colors[pts[0]["kernel"]]
            style = BATCH_STYLES[batches.index(pts[0]["batch"]) % len(BATCH_STYLES)] if " b" in name else "-"
            marker = "s" if " b" in name else "o"
            ax.errorbar(t, med, yerr=err, color=color, ls=style, lw=1.2, capsize=2, marker=marker, ms=4, label=name)
            axp.plot(t, [r["pct_ceiling_median"] for r in pts], color=color, ls=style, lw=1.2, marker=marker, ms=4)
    ceil = sorted({(r["threads"], r["ceiling_gb_s"]) for r in rows if r["what"] == "kernel"})
    ax.plot([c[0] for c in ceil], [c[1] for c in ceil], "k_", ms=18, mew=2.5, ls="none",
            label="read ceiling in the bench process (ceiling_GB/s)")
    for a in (ax, axp):
        a.set_xlabel("threads")
        a.set_xticks(threads)
        a.grid(True, which="both", lw=0.3, alpha=0.5)
        if threads[-1] / threads[0] > 16:
            a.set_xscale("log", base=2)
            a.set_xticks(threads, [str(t) for t in threads])
        a.set_xlim(threads[0] - 0.3 if threads[-1] / threads[0] <= 16 else threads[0] / 1.3,
                   threads[-1] + 0.3 if threads[-1] / threads[0] <= 16 else threads[-1] * 1.3)
    if log_y:
        ax.set_yscale("log")
    ax.set_ylabel("GB/s (1e9 bytes per second; kernels: packed weight bytes)")
    ax.set_title("median, whiskers min-max", fontsize=9)
    axp.set_ylabel("% of the read ceiling (kernel GB/s / ceiling_GB/s)")
    axp.set_title("share of the read ceiling (median)", fontsize=9)
    axp.set_ylim(0, max(100, max(r["pct_ceiling_median"] for r in rows if r["what"] == "kernel") * 1.1))
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    fig.suptitle(run.title("Scaling") + "\nprobe (bw.json) and kernels on the persistent pool (bench.json)",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.03 + 0.032 * ((len(labels) + 2) // 3), 1, 1))
    report(PROG, save(fig, base))
    return rows


def main(argv=None):
    return run_main(PROG, __doc__.splitlines()[0], plot, argv)


if __name__ == "__main__":
    sys.exit(main())
