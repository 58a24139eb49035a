#!/usr/bin/env python3
"""GB/s against thread count, and each kernel's share of its own roof measured beside it.

Left: every kernel on the persistent pool (bench.json, GB/s of packed weight bytes) and the paired read
probe (the median, whiskers min-max, of every probe sample paired with a persistent-pool repetition at
that thread count: the read ceiling), medians with min-max whiskers; the DRAM probe's read, write and
copy from bw.json are drawn thin and grey: a separate `ciot bw` run, not the ruler. Right: per kernel the
per-repetition ratio to the row's roof (results/SCHEMA.md), median with min-max whiskers, in %, and a
100% line: a gemv's is the paired read ratio (kernel GB/s / probe GB/s); a gemm's is GMAC/s over the
roofline bound at its intensity, the lower of probe GB/s x MACs per byte and the paired compute sample of
its family (a triangle where the compute roof bounds it). A lookup or scalar gemm has no compute roof and
so no ratio: it is left out of the right panel and named under it. A case with a flagged repetition or a
cache-resident working set is ringed, its flag explained in the legend. A run of more series than a legend
can hold (plotkit.leading_series) draws the fastest kernel per source file, op and batch and the stock gemv,
and says so in the title; --table still has every row. A bw.json of `ciot bw --place domains` with more than one
domain adds a third panel: the read ceiling of each domain alone, then of all together (medians, whiskers
min-max); those rows stay out of the thread panels."""
import sys
import textwrap

from mpl import plt
from plotkit import (flag_handles, flag_marks, flags_present, leading_series, plain_log_ticks, report, run_colors,
                     run_main, save, shown_note)
from runfolder import InputError

PROG = "scaling"
PROBE_STYLES = {"read": ("0.55", "-"), "write": ("0.65", "--"), "copy": ("0.75", ":"), "update": ("0.45", "-."),
                "copy_nt": ("0.7", (0, (1, 3)))}
BATCH_STYLES = ["--", ":", "-."]   # gemm series of one kernel differ by batch
PAIRED = "paired read probe"
ROOF_MARKERS = {"bw": "s", "compute": "^"}   # gemm points on the right panel; gemv points keep "o"


def series_name(c):
    return f"{c.kernel} b{c.batch}" if c.op == "gemm" else c.kernel


def rows_of(run):
    cases = run.bench.cases   # first: an old bench.json is the message to give, before bw.json's
    rows = []
    for p in run.bw:
        if p.domain:   # ciot bw --place domains: a domain's read ceiling alone, or all together (domain panel)
            rows.append(dict(what="domain", series=f"domain {p.domain}", domain=p.domain, kind=p.name,
                             threads=p.threads, traffic=p.note, gb_s_min=p.stats["min"], gb_s_median=p.stats["median"],
                             gb_s_max=p.stats["max"], flags="cache_resident" if p.cache_resident else ""))
            continue
        rows.append(dict(what="bw", series=f"ciot bw {p.name}", threads=p.threads, traffic=p.note,
                         gb_s_min=p.stats["min"], gb_s_median=p.stats["median"], gb_s_max=p.stats["max"],
                         flags="cache_resident" if p.cache_resident else ""))
    kernels = []
    for c in cases:
        if c.pool != "persistent":
            continue
        s, r, roof = c.stats("kernel_gbs"), c.stats("ratio"), c.roof_stats()
        kernels.append(dict(what="kernel", series=series_name(c), kernel=c.kernel, shape=c.shape, batch=c.batch,
                            threads=c.threads, traffic="packed weight bytes",
                            gb_s_min=s["min"], gb_s_median=s["median"], gb_s_max=s["max"],
                            probe_gb_s_median=c.median("probe_gbs"), ratio_min=r["min"], ratio_median=r["median"],
                            ratio_max=r["max"], roof=c.roof_note,
                            roof_ratio_min=roof["min"] if roof else "", roof_ratio_median=roof["median"] if roof else "",
                            roof_ratio_max=roof["max"] if roof else "", flags=",".join(c.flags)))
    if not kernels:
        raise InputError(f"{run.file('bench.json')}: no benchmark on the persistent pool")
    names = [k["series"] for k in kernels]
    twice = sorted({(k["series"], k["threads"]) for k in kernels if names.count(k["series"]) > 1
                    and sum((x["series"], x["threads"]) == (k["series"], k["threads"]) for x in kernels) > 1})
    if twice:   # several shapes of one kernel (ciot bench --gguf): a series per kernel and shape
        for k in kernels:
            k["series"] += f" {k['shape']}"
    paired = []
    for t in sorted({k["threads"] for k in kernels}):
        p = run.paired_ceiling(t)
        paired.append(dict(what="paired_probe", series=PAIRED, threads=t, traffic="read, paired with the kernels",
                           gb_s_min=p["min"], gb_s_median=p["median"], gb_s_max=p["max"], samples=p["samples"],
                           flags=""))
    by = lambda r: (r["series"], r["threads"])   # noqa: E731
    return sorted(rows, key=by) + paired + sorted(kernels, key=by)


def plot(run, base):
    table = rows_of(run)
    colors = run_colors(run)
    shown = leading_series(run)   # the table keeps every row; a run of many kernels draws the leading ones
    for r in table:
        if r["what"] == "kernel":
            r["shown"] = shown is None or (r["kernel"], r["shape"], r["batch"]) in shown
    domains = [r for r in table if r["what"] == "domain" and r["kind"] == "read"]
    rows = [r for r in table if r.get("shown", True) and r["what"] != "domain"]
    kernels = [r for r in rows if r["what"] == "kernel"]
    batches = sorted({r["batch"] for r in kernels if " b" in r["series"]})
    threads = sorted({r["threads"] for r in rows})
    gbs = [r[k] for r in rows for k in ("gb_s_min", "gb_s_max")]
    log_y = max(gbs) / min(gbs) > 20

    legend_rows = -(-len({r["series"] for r in kernels}) // 4) + len({r["series"] for r in rows if r["what"] != "kernel"}) + 2
    panel = len([d for d in domains if d["domain"] != "all"]) > 1   # the per-domain panel: more than one domain
    if panel:
        fig, (ax, axp, axd) = plt.subplots(1, 3, figsize=(19, 5.2 + 0.19 * legend_rows),
                                           gridspec_kw={"width_ratios": [3, 2, 2]})
        domain_panel(axd, domains)
    else:
        fig, (ax, axp) = plt.subplots(1, 2, figsize=(14, 5.2 + 0.19 * legend_rows), gridspec_kw={"width_ratios": [3, 2]})
    rank = {"paired_probe": 0, "bw": 1, "kernel": 2}
    for what, series in sorted({(r["what"], r["series"]) for r in rows}, key=lambda ws: (rank[ws[0]], ws[1])):
        pts = sorted((r for r in rows if r["series"] == series), key=lambda r: r["threads"])
        t = [r["threads"] for r in pts]
        med = [r["gb_s_median"] for r in pts]
        err = [[m - r["gb_s_min"] for m, r in zip(med, pts)], [r["gb_s_max"] - m for m, r in zip(med, pts)]]
        if what == "bw":
            color, style = PROBE_STYLES.get(series.split()[-1], ("0.6", "-."))
            cache = " [cache-resident]" if pts[0]["flags"] else ""
            ax.errorbar(t, med, yerr=err, color=color, ls=style, lw=1, capsize=2, marker="D", ms=3,
                        label=f"{series} (a separate probe run, bw.json){cache}: {pts[0]['traffic']}")
            for x, y in zip(t, med):
                flag_marks(ax, x, y, [f for f in pts[0]["flags"].split(",") if f])
        elif what == "paired_probe":
            n = sum(r["samples"] for r in pts)
            ax.errorbar(t, med, yerr=err, color="black", ls="-", lw=2.4, capsize=4, marker="D", ms=5,
                        label=f"{PAIRED}: median of the samples paired with the persistent-pool repetitions "
                              f"({n} samples; whiskers min-max) = the ceiling")
        else:
            color = colors[pts[0]["kernel"]]
            style = BATCH_STYLES[batches.index(pts[0]["batch"]) % len(BATCH_STYLES)] if " b" in series else "-"
            marker = "s" if " b" in series else "o"
            ax.errorbar(t, med, yerr=err, color=color, ls=style, lw=1.2, capsize=2, marker=marker, ms=4, label=series)
            judged = [r for r in pts if r["roof_ratio_median"] != ""]   # a row without a roof has no ratio
            tj = [r["threads"] for r in judged]
            pct = [100 * r["roof_ratio_median"] for r in judged]
            perr = [[p - 100 * r["roof_ratio_min"] for p, r in zip(pct, judged)],
                    [100 * r["roof_ratio_max"] - p for p, r in zip(pct, judged)]]
            axp.errorbar(tj, pct, yerr=perr, color=color, ls=style, lw=1.2, capsize=2, marker="none")
            for x, y, r in zip(tj, pct, judged):
                axp.plot(x, y, marker if marker == "o" else ROOF_MARKERS[r["roof"]], color=color, ms=5.5)
                flag_marks(axp, x, y, [f for f in r["flags"].split(",") if f])
    axp.axhline(100, color="red", lw=1, ls="--")
    axp.text(threads[-1], 100, "100%: the roof ", color="red", fontsize=7.5, va="bottom", ha="right")
    for a in (ax, axp):
        a.set_xlabel("threads")
        a.set_xticks(threads)
        a.grid(True, which="both", lw=0.3, alpha=0.5)
        wide = threads[-1] / threads[0] > 16
        if wide:
            a.set_xscale("log", base=2)
            a.set_xticks(threads, [str(t) for t in threads])
        # room beside the points for the whiskers and the rings
        a.set_xlim(threads[0] / 1.3 if wide else threads[0] - 0.3, threads[-1] * 1.3 if wide else threads[-1] + 0.3)
    if log_y:
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis)
    ax.set_ylabel("GB/s (1e9 bytes per second; kernels: packed weight bytes)")
    ax.set_title("median, whiskers min-max", fontsize=9)
    axp.set_ylabel("% of its roof, per repetition\n(gemv: paired read ceiling; gemm: roofline bound)")
    axp.set_title("ratio to the roof: median, whiskers min-max; circle gemv (read ceiling),\nsquare gemm under the "
                  "bw roof, triangle gemm under the compute roof (paired\ncompute sample of its family)"
                  + unroofed_note(kernels), fontsize=8)
    # one wild repetition (a probe sample that met a foreign load) would flatten every other series: the axis
    # stops at twice the highest median, and a whisker cut there gets its value written at the top
    judged = [r for r in kernels if r["roof_ratio_max"] != ""]
    top = max([110] + [min(100 * r["roof_ratio_max"], 200 * r["roof_ratio_median"]) * 1.08 for r in judged])
    axp.set_ylim(0, top)
    for r in judged:
        if 100 * r["roof_ratio_max"] > top:
            axp.annotate(f"{100 * r['roof_ratio_max']:.0f}%", (r["threads"], top), xytext=(3, -9),
                         textcoords="offset points", fontsize=6.5, color=colors[r["kernel"]])
    # two legends under the panels: the probes and flags (long labels, one column), then the kernels
    handles, labels = ax.get_legend_handles_labels()
    probes = [h for h, l in zip(handles, labels) if l.startswith((PAIRED, "ciot bw"))]
    probes += flag_handles(flags_present(run, kernels)) + _bw_cache_handle(run, rows)
    series = [h for h, l in zip(handles, labels) if not l.startswith((PAIRED, "ciot bw"))]
    ncol = 4
    row_in = 0.19   # one legend row at fontsize 8, inches
    kernel_rows = -(-len(series) // ncol)
    height = fig.get_figheight()
    fig.legend(handles=series, loc="lower center", ncol=ncol, fontsize=8, frameon=False)
    fig.legend(handles=probes, loc="lower center", ncol=1, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, (0.1 + row_in * kernel_rows) / height))
    fig.suptitle(run.title("Scaling") + "\nkernels on the persistent pool and the read probe paired with them "
                 "(bench.json); bw.json's probe run in grey" + ("" if shown is None else "\n" + shown_note(run, shown)),
                 fontsize=10)
    fig.tight_layout(rect=(0, (0.25 + row_in * (kernel_rows + len(probes))) / height, 1, 1))
    report(PROG, save(fig, base))
    return table


def domain_panel(axd, domains):
    """bw.json's read ceiling of each domain alone, then of all together (ciot bw --place domains): bars of the
    median with min-max whiskers, each labelled with its thread count."""
    names = [d["domain"] for d in domains]
    med = [d["gb_s_median"] for d in domains]
    err = [[m - d["gb_s_min"] for m, d in zip(med, domains)], [d["gb_s_max"] - m for m, d in zip(med, domains)]]
    colors = ["0.35" if n == "all" else "tab:blue" for n in names]
    axd.bar(range(len(domains)), med, yerr=err, color=colors, capsize=3)
    axd.set_xticks(range(len(domains)), [f"{n}\n{d['threads']} thr" for n, d in zip(names, domains)], fontsize=7.5)
    for i, (m, d) in enumerate(zip(med, domains)):
        axd.text(i, d["gb_s_max"], f"{m:.1f}\n", ha="center", va="bottom", fontsize=7)
    axd.set_ylabel("read GB/s (bw.json, --place domains)")
    axd.set_title("read ceiling per domain: each alone, then all\n(median, whiskers min-max)", fontsize=9)
    axd.grid(True, axis="y", lw=0.3, alpha=0.5)


def unroofed_note(kernels):
    """The gemm series left out of the right panel, by why they have no roof ('lookup: no multiplies: ...')."""
    why = {}
    for r in kernels:
        if r["roof_ratio_median"] == "":
            names = why.setdefault(r["roof"][len("none ("):-1], [])
            names += [] if r["series"] in names else [r["series"]]
    return "".join("\n" + textwrap.fill(f"no roof, not drawn ({w}): {', '.join(sorted(n))}", 80)
                   for w, n in sorted(why.items()))


def _bw_cache_handle(run, rows):
    """The cache-resident flag of bw.json, when only bw.json carries it (bench.json's cases otherwise say it)."""
    kernel_flags = {f for r in rows if r["what"] != "bw" for f in r["flags"].split(",") if f}
    if "cache_resident" in kernel_flags or not any(r["flags"] for r in rows if r["what"] == "bw"):
        return []
    return flag_handles({"cache_resident": "cache-resident: the bw.json buffer is below 4 x LLC"})


def main(argv=None):
    return run_main(PROG, __doc__.splitlines()[0], plot, argv)


if __name__ == "__main__":
    sys.exit(main())
