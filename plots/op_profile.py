#!/usr/bin/env python3
"""Where a replayed token's time goes (replay.json): per op, the time the threads spent working and the
time they waited at the barrier (means over the threads), slowest ops first, one panel per dispatch
mode (and context, for a whole token: its op kinds, deltanet, attention, rmsnorm, ..., beside the
matvecs); and tokens/s of each mode against the bound (read ceiling / weight bytes per token, or every
byte a whole token moves).

The ceiling is the median of the read-probe samples paired with the tokens (replay.json's ceiling_gbs);
for a whole token whose ops write, each kind's bytes are at its own ruler (replay.json's rulers: update for
DeltaNet, a copy for the state copies). Each mode's bar carries the median (min - max) of its per-token
ratios, token GB/s over the token's own probe sample (its bytes' time at its own samples). A mode with a token above 100% (or its median token above the bound), or a cache-resident
replay (weights not cold, or a probe buffer below 4 x LLC), is ringed; an op kind with an op above 100%
of the ceiling is marked "!" in red.

Ops of the same kind (the name after its last '.', so blk.7.ffn_down is ffn_down) are summed into one
bar, so a 401-op token reads as a dozen bars; the --top slowest get a bar each and the rest one bar
together, so the bars add up to the whole token."""
import statistics
import sys

from mpl import plt
from plotkit import (FLAG_STYLE, ArgumentParser, at_least_one, flag_handles, flag_marks, fmt, guarded, output_base,
                     report, save, write_table)
from runfolder import InputError, Run

PROG = "profile"
WORK, WAIT = "#4c72b0", "#dd8452"


def op_rows(dispatch_run, top):
    by_name = {}
    for op in dispatch_run.ops:
        kind = op.name.rsplit(".", 1)[-1]
        r = by_name.setdefault(kind, dict(what="op", dispatch=dispatch_run.label, name=kind, count=0,
                                             wall_us=0.0, busy_us_mean=0.0, wait_us_mean=0.0, busy_us_max=0.0,
                                             above_100=0, flags=""))
        r["count"] += 1
        if op.ratio_above_1:
            r["above_100"] += 1
            r["flags"] = "ratio_above_1"
        r["wall_us"] += op.wall_us
        r["busy_us_mean"] += statistics.fmean(op.busy_us)
        r["wait_us_mean"] += statistics.fmean(op.wait_us)
        r["busy_us_max"] += max(op.busy_us)
    rows = sorted(by_name.values(), key=lambda r: -r["wall_us"])
    if len(rows) > top + 1:   # the rest in one bar, so the panel still adds up to the token
        rest = rows[top:]
        rows = rows[:top] + [dict(what="op_rest", dispatch=dispatch_run.label, name=f"{len(rest)} other ops",
                                  count=sum(r["count"] for r in rest),
                                  flags="ratio_above_1" if any(r["flags"] for r in rest) else "",
                                  **{k: sum(r[k] for r in rest)
                                     for k in ("wall_us", "busy_us_mean", "wait_us_mean", "busy_us_max", "above_100")})]
    return rows


def dispatch_row(rp, d):
    # above 100%: a token read faster than its own probe sample, or the median token above the bound
    above = d.ratio_above_1 or d.tok_s > d.bound_tok_s
    flags = [f for f, on in (("ratio_above_1", above), ("cache_resident", rp.cache_resident)) if on]
    return dict(what="dispatch", dispatch=d.label, tok_s=d.tok_s, bound_tok_s=d.bound_tok_s,
                ms_per_token_min=d.ms_per_token["min"], ms_per_token_median=d.ms_per_token["median"],
                ms_per_token_max=d.ms_per_token["max"], gbs=d.gbs, pct_ceiling=d.pct_ceiling,
                ratio_min=d.ratio["min"], ratio_median=d.ratio["median"], ratio_max=d.ratio["max"],
                ceiling_gbs=rp.ceiling_gbs, wait_share=d.wait_share, flags=",".join(flags))


def plot(run, base, top):
    rp = run.replay
    per_mode = [op_rows(d, top) for d in rp.runs]
    modes = [dispatch_row(rp, d) for d in rp.runs]
    n = len(rp.runs)
    bars = max(len(r) for r in per_mode)
    fig = plt.figure(figsize=(max(10, 4.2 * n), 2.2 + 0.24 * bars + 2.8))
    grid = fig.add_gridspec(2, n, height_ratios=[0.24 * bars + 0.8, 2.6], hspace=0.6 / (0.24 * bars + 3.4) * 2.5)
    xmax = max(r["busy_us_mean"] + r["wait_us_mean"] for rows in per_mode for r in rows) * 1.05
    for i, (d, rows) in enumerate(zip(rp.runs, per_mode)):
        ax = fig.add_subplot(grid[0, i])
        y = list(range(len(rows)))
        work = [r["busy_us_mean"] / 1e3 for r in rows]
        wait = [r["wait_us_mean"] / 1e3 for r in rows]
        ax.barh(y, work, color=WORK, label="work (busy, mean over threads)")
        ax.barh(y, wait, left=work, color=WAIT, label="barrier wait (mean over threads)")
        ax.set_yticks(y, [r["name"] + (f" (x{r['count']})" if r["count"] > 1 and r["what"] == "op" else "")
                          + (" !" if r["flags"] else "") for r in rows], fontsize=7)
        for tick, r in zip(ax.get_yticklabels(), rows):
            if r["flags"]:
                tick.set_color(FLAG_STYLE["ratio_above_1"]["color"])
        ax.invert_yaxis()   # slowest on top
        ax.set_xlim(0, xmax / 1e3)
        ax.set_xlabel("ms per token")
        ax.grid(True, axis="x", lw=0.3, alpha=0.5)
        ax.set_title(f"dispatch: {d.label}, {d.ms_per_token['median']:.3g} ms/token (median)\n"
                     f"barrier wait: {100 * d.wait_share:.3g}% of thread time", fontsize=8.5)
    handles, labels = ax.get_legend_handles_labels()

    ax = fig.add_subplot(grid[1, :])
    x = list(range(n))
    tok = [m["tok_s"] for m in modes]
    # whiskers: the token rate at the slowest and fastest repetition (tokens a second from milliseconds a token)
    lo = [t - 1e3 / m["ms_per_token_max"] for t, m in zip(tok, modes)]
    hi = [1e3 / m["ms_per_token_min"] - t for t, m in zip(tok, modes)]
    ax.bar(x, tok, 0.5, color=WORK, yerr=[lo, hi], capsize=3, label="tokens/s (median; whiskers min-max)")
    for xi, m in zip(x, modes):
        ax.hlines(m["bound_tok_s"], xi - 0.35, xi + 0.35, colors="black", lw=2,
                  label=(f"bound: every byte a token moves at its kind's paired ruler (medians of the {rp.tokens} "
                         f"paired samples: {rp.ruler_text()})" if len(rp.rulers) > 1 else
                         f"bound: read ceiling ({fmt(rp.ceiling_gbs)} GB/s, the median of the {rp.tokens} paired probe "
                         f"samples, {fmt(min(rp.probe_gbs_per_token))}-{fmt(max(rp.probe_gbs_per_token))}) / "
                         + ("every byte a token moves" if rp.whole_token else "weight bytes per token"))
                  if xi == 0 else None)
        ax.text(xi, m["tok_s"] / 2, f"{m['tok_s']:.3g} tok/s\n{m['gbs']:.3g} GB/s", ha="center", va="center",
                fontsize=8, color="white")
        flags = [f for f in m["flags"].split(",") if f]
        top = 1e3 / m["ms_per_token_min"]
        ax.annotate(f"paired ratio {fmt(100 * m['ratio_median'])}% ({fmt(100 * m['ratio_min'])}-"
                    f"{fmt(100 * m['ratio_max'])})" + (" !" if flags else ""), (xi, max(top, m["bound_tok_s"])),
                    xytext=(0, 4), textcoords="offset points", ha="center", va="bottom", fontsize=8,
                    color=FLAG_STYLE[flags[0]]["color"] if flags else "black")
        flag_marks(ax, xi + 0.33, m["tok_s"], flags, size=11)   # beside the bar's top, clear of the whisker
    ax.set_xticks(x, [m["dispatch"] for m in modes])
    ax.set_xlim(-0.6, n - 0.4)
    ax.set_ylim(0, max(max(m["bound_tok_s"] for m in modes), max(t + h for t, h in zip(tok, hi))) * 2)
    ax.set_ylabel("tokens/s (whole token)" if rp.whole_token else "tokens/s (matmuls only)")
    ax.set_xlabel("dispatch mode and context" if rp.whole_token else "dispatch mode")
    ax.grid(True, axis="y", lw=0.3, alpha=0.5)
    flag_labels = {f: rp.flag_label(f) for f in ("ratio_above_1", "cache_resident")
                   if any(f in m["flags"].split(",") for m in modes)}
    token_handles = ax.get_legend_handles_labels()[0] + flag_handles(flag_labels)
    if any(r["flags"] for rows in per_mode for r in rows):
        from matplotlib.lines import Line2D
        ruler = "its paired ruler" if len(rp.rulers) > 1 else "the read ceiling"
        token_handles.append(Line2D([], [], ls="none", label=f"op kind in red, \"!\": an op above 100% of {ruler} "
                                                             f"({rp.flag_text['ratio_above_1']})"))
    ax.legend(handles=token_handles, loc="upper center", fontsize=8, ncol=1, frameon=False)
    # under the two title lines, so it never runs into them
    fig.legend(handles, labels, loc="upper center", fontsize=8, ncol=2, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.5 / fig.get_figheight()))

    strag = f", straggler: thread {rp.straggler['thread']} ({rp.straggler['us']:.3g} us)" if rp.straggler else ""
    fig.suptitle(run.title("Profile") + f"\n{rp.model}: {rp.kernel}, {rp.threads} threads, batch {rp.batch}, "
                 f"{rp.memory} memory, {rp.tokens} tokens, timing overhead {rp.overhead_text}{strag}",
                 fontsize=10, y=0.995)
    fig.subplots_adjust(left=0.1, right=0.98, top=1 - 1.3 / fig.get_figheight(), bottom=0.6 / fig.get_figheight(),
                        wspace=0.55)
    report(PROG, save(fig, base))
    return [r for rows in per_mode for r in rows] + modes


def main(argv=None):
    p = ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--out", metavar="DIR")
    p.add_argument("--table", metavar="FILE")
    p.add_argument("--top", type=at_least_one, default=20, help="ops with a bar of their own (default 20)")
    args = p.parse_args(argv)
    if args.table and not args.table.endswith((".csv", ".json")):
        p.error(f"--table {args.table}: the name must end in .csv or .json")

    def work():
        rows = []
        for path in args.runs:
            run = Run(path)
            rows += [dict(run=run.name, **r) for r in plot(run, output_base(run, PROG, args.out), args.top)]
        if args.table:
            write_table(args.table, rows)
    return guarded(PROG, work)


if __name__ == "__main__":
    sys.exit(main())
