#!/usr/bin/env python3
"""Where a whole token's time goes as the context grows (replay.json of a whole-token replay): ms per token
split into matvecs, DeltaNet, attention, state copies and the rest, stacked, one bar per KV length L (log
axis), with tokens/s and the bound (every byte a token moves at its kind's paired ruler: the read probe, the
update probe for DeltaNet, the copy probe for the state copies) on the right axis;
the attention fit (intercept + slope x L) against the matvecs' time, and the context where they meet.

The runs of the first dispatch are drawn; each bar's parts are the medians over the measured tokens (so
they need not add up to the median token exactly, which is drawn as a tick)."""
import sys

from matplotlib.ticker import FuncFormatter
from mpl import plt
from plotkit import ArgumentParser, guarded, output_base, report, save, write_table
from replay import PARTS
from runfolder import InputError, Run

PROG = "context"
COLORS = {"matvecs": "#4c72b0", "deltanet": "#55a868", "attention": "#c44e52", "state_copies": "#8172b2",
          "rest": "#937860"}


def rows_of(rp):
    first = rp.runs[0].dispatch
    runs = sorted((r for r in rp.runs if r.dispatch == first), key=lambda r: r.context)
    rows = []
    for r in runs:
        for part in PARTS:
            rows.append(dict(what="part", dispatch=first, context=r.context, part=part,
                             ms_median=r.split[part]["ms_median"], ms_min=r.split[part]["ms_min"],
                             ms_max=r.split[part]["ms_max"]))
        rows.append(dict(what="run", dispatch=first, context=r.context, ms_per_token_median=r.ms_per_token["median"],
                         tok_s=r.tok_s, bound_tok_s=r.bound_tok_s, pct_ceiling=r.pct_ceiling))
    c = rp.crossover
    if c is not None:
        rows.append(dict(what="crossover", dispatch=first, context=c["context"],
                         attention_intercept_ms=c["attention_intercept_ms"],
                         attention_ms_per_position=c["attention_ms_per_position"], matvecs_ms=c["matvecs_ms"]))
    return runs, rows


def plot(run, base):
    rp = run.replay
    if not rp.whole_token:
        raise InputError(f"{run.path}/replay.json: not a whole-token replay (ciot replay --matvecs-only, or a model "
                         "without the ops between its matvecs): no context plot")
    runs, rows = rows_of(rp)
    fig, ax = plt.subplots(figsize=(9, 5.6))
    xs = [max(r.context, 1) for r in runs]
    widths = [x * 0.45 for x in xs]   # equal widths on the log axis
    bottom = [0.0] * len(runs)
    for part in PARTS:
        h = [r.split[part]["ms_median"] for r in runs]
        ax.bar(xs, h, widths, bottom=bottom, color=COLORS[part], label=part.replace("_", " "), edgecolor="white", lw=0.5)
        bottom = [b + v for b, v in zip(bottom, h)]
    ax.scatter(xs, [r.ms_per_token["median"] for r in runs], marker="_", s=400, color="black", zorder=3,
               label="the median token")
    c = rp.crossover
    hi_x = max(xs) * 2
    if c is not None and c["context"] > 0:
        hi_x = max(hi_x, c["context"] * 1.6)
        fit_x = [min(xs) / 1.5, hi_x]
        ax.plot(fit_x, [c["attention_intercept_ms"] + c["attention_ms_per_position"] * x for x in fit_x], ls="--",
                color=COLORS["attention"], lw=1.2, label="attention, fitted: intercept + slope x L")
        ax.axhline(c["matvecs_ms"], color=COLORS["matvecs"], ls=":", lw=1.2, label="the matvecs (median over the runs)")
        ax.axvline(c["context"], color="black", lw=0.8)
        ax.annotate(f"attention = matvecs\nat L = {c['context']:,.0f}", (c["context"], c["matvecs_ms"]),
                    xytext=(-6, 8), textcoords="offset points", fontsize=8, ha="right")
    elif c is not None:
        ax.text(0.02, 0.95, "attention does not grow with the context here: no crossover", transform=ax.transAxes,
                fontsize=8, va="top")
    ax.set_xscale("log")
    ax.set_xlim(min(xs) / 2, hi_x)
    ax.set_xticks(xs)   # a tick at each context run: one or two contexts may sit between the decades
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.set_xlabel("context: KV cache length L (positions, log scale)")
    ax.set_ylabel("ms per token (median over the tokens), by part")
    ax.grid(True, axis="y", lw=0.3, alpha=0.5)
    ax.set_ylim(0, max(max(bottom), c["matvecs_ms"] if c else 0) * 1.35)
    right = ax.twinx()
    right.plot(xs, [r.tok_s for r in runs], "o-", color="black", lw=1.2, label="tokens/s (median)")
    bound = (f"bound: every byte a token moves at its kind's paired ruler ({rp.ruler_text()})" if len(rp.rulers) > 1
             else f"bound: paired ceiling ({rp.ceiling_gbs:.3g} GB/s) / every byte a token moves")
    right.plot(xs, [r.bound_tok_s for r in runs], "s--", color="grey", lw=1.2, label=bound)
    right.set_ylim(0, max(max(r.bound_tok_s for r in runs), max(r.tok_s for r in runs)) * 1.3)
    right.set_ylabel("tokens/s")
    handles = ax.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    ax.legend(handles=handles, loc="upper left", fontsize=7.5, ncol=2, frameon=False)
    fig.suptitle(run.title("Whole token against the context") + f"\n{rp.model}: {rp.kernel}, {rp.threads} threads, "
                 f"dispatch {runs[0].dispatch}, {rp.tokens} tokens\ntiming overhead {rp.overhead_text}", fontsize=9)
    fig.tight_layout()
    report(PROG, save(fig, base))
    return rows


def main(argv=None):
    p = ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--out", metavar="DIR")
    p.add_argument("--table", metavar="FILE")
    args = p.parse_args(argv)
    if args.table and not args.table.endswith((".csv", ".json")):
        p.error(f"--table {args.table}: the name must end in .csv or .json")

    def work():
        rows = []
        for path in args.runs:
            run = Run(path)
            rows += [dict(run=run.name, **r) for r in plot(run, output_base(run, PROG, args.out))]
        if args.table:
            write_table(args.table, rows)
    return guarded(PROG, work)


if __name__ == "__main__":
    sys.exit(main())
