"""What every plot script shares: the command line, saving PNG + SVG, the plotted table, colours, and
labels placed next to points without overlapping."""
import argparse
import csv
import json
import math
import os
import sys
import traceback

import numpy as np
from mpl import plt
from matplotlib.text import Text
from matplotlib.transforms import Bbox
from runfolder import InputError, Run


class ArgumentParser(argparse.ArgumentParser):
    """argparse, but a refusal is one line "PROG: what is wrong" on stderr and exit 2, without the usage."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} ({self.prog} --help lists the options)\n")


def at_least_one(text):
    """An argparse type: a whole number of at least 1."""
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number of at least 1")
    return v


ALL_KERNELS_HELP = ("layouts and roofline: every kernel, the scalar references and the spawn pool too "
                    "(default: the fastest kernel of each layout on the persistent pool)")


def parse_args(prog, description, argv, at_least=1, all_kernels=False):
    p = ArgumentParser(prog=prog, description=description)
    p.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run folder(s) written by `ciot suite`")
    p.add_argument("--out", metavar="DIR", help="write the pictures here instead of into each run folder")
    if all_kernels:
        p.add_argument("--all-kernels", action="store_true", help=ALL_KERNELS_HELP)
    p.add_argument("--table", metavar="FILE", help="also write the plotted values as CSV or JSON (by extension)")
    args = p.parse_args(argv)
    if args.table and not args.table.endswith((".csv", ".json")):
        p.error(f"--table {args.table}: the name must end in .csv or .json")
    if len(args.runs) < at_least:
        p.error(f"needs at least {at_least} run folders")
    return args


def output_base(run, plot, out_dir):
    """<run>/<plot> by default; with --out, DIR/<run name>-<plot> so several runs do not collide."""
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        return os.path.join(out_dir, f"{run.name}-{plot}")
    return os.path.join(run.path, plot)


def save(fig, base):
    """PNG and SVG of fig; returns the two paths."""
    paths = [base + ".png", base + ".svg"]
    fig.savefig(paths[0], dpi=110)
    fig.savefig(paths[1], metadata={"Date": None})
    plt.close(fig)
    return paths


def write_table(path, rows):
    """rows (dicts) as CSV or JSON; floats keep full precision so tests can compare them exactly."""
    if path.endswith(".json"):
        with open(path, "w") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")
        return
    keys = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)


def run_main(prog, description, plot_run, argv=None, all_kernels=False):
    """The body of a per-run script: plot_run(run, base) draws one run and returns its table rows; with
    all_kernels the script takes --all-kernels and plot_run gets all_kernels=True/False."""
    args = parse_args(prog, description, argv, all_kernels=all_kernels)
    return guarded(prog, lambda: _plot_each(args, prog, plot_run))


def _plot_each(args, prog, plot_run):
    runs = [Run(p) for p in args.runs]
    rows = []
    extra = {"all_kernels": args.all_kernels} if hasattr(args, "all_kernels") else {}
    for run in runs:
        run_rows = plot_run(run, output_base(run, prog, args.out), **extra)
        rows += [dict(run=run.name, **r) for r in run_rows]
    if args.table:
        write_table(args.table, rows)


def guarded(prog, work):
    """Runs work(); an input problem is one line on stderr and exit 2, never a traceback."""
    try:
        work()
        return 0
    except InputError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"{prog}: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 2
    except Exception as e:  # a bug here, not the input: still one line, the traceback on request
        if os.environ.get("CIOT_PLOTS_DEBUG"):
            traceback.print_exc()
        print(f"{prog}: internal error: {type(e).__name__}: {e} (CIOT_PLOTS_DEBUG=1 shows the traceback)",
              file=sys.stderr)
        return 3


def report(prog, paths):
    print(f"{prog}: wrote {paths[0]} and .svg")


def kernel_colors(names):
    """A stable colour per name (sorted), shared by every panel of a figure."""
    names = sorted(set(names))
    cmap = plt.get_cmap("tab10" if len(names) <= 10 else "tab20")
    return {n: cmap(i % cmap.N) for i, n in enumerate(names)}


# Above this many series (kernel x shape x batch on the persistent pool) a plot draws and names only the leading
# ones: a run of every kernel on an AVX-512 machine has about 150, which no legend or label placer can show.
SERIES_SHOWN_ALL = 24


def leading_series(run):
    """None when a run has few enough series to show every one; else the (kernel, shape, batch) series to show:
    per source file, op and shape the fastest kernel at the run's highest thread count (median Gweights/s on the
    persistent pool), for a gemm at batch 4 and at the largest batch (the suite's speculative-verification
    batches between them have their own table), and the stock PQ2_0 gemv (the layout 'pq2_0' itself), the
    baseline of 'x stock'."""
    cases = [c for c in run.bench.cases if c.pool == "persistent"]
    series = {(c.kernel, c.shape, c.batch) for c in cases}
    return None if len(series) <= SERIES_SHOWN_ALL else leading_pick(run)


def leading_pick(run):
    """leading_series' pick, whatever the number of series: the series the roofline names by default. A runtime's
    own type (ciot bench --peer) is never a source file's pick; the roofline draws those apart."""
    cases = [c for c in run.bench.cases if c.pool == "persistent"]
    top = max(c.threads for c in cases)
    batches = sorted({c.batch for c in cases if c.op == "gemm"})
    ends = {4 if 4 in batches else batches[0], batches[-1]} if batches else set()
    best = {}
    for c in cases:
        key = (c.source, c.op, c.shape, c.batch)
        if c.engine == "ciot" and c.threads == top and (c.op == "gemv" or c.batch in ends) and \
                (key not in best or c.median("gweights_s") > best[key].median("gweights_s")):
            best[key] = c
    shown = {(c.kernel, c.shape, c.batch) for c in best.values()}
    return shown | {(c.kernel, c.shape, c.batch) for c in cases
                    if c.layout == "pq2_0" and c.op == "gemv" and not c.kernel.endswith("_ref")}


# Okabe-Ito hues, told apart by most colour-blind readers too: one per family of layouts (the layout's name
# without its source suffix), the source file's own layout grey, so a colour means the same repack everywhere.
FAMILY_COLORS = {"stock": "#8c8c8c", "t2p": "#0072B2", "t2x4": "#CC79A7", "tl2": "#009E73", "tl16": "#E69F00",
                 "tl3": "#D55E00"}
OTHER_COLOR = "#56B4E9"
SOURCE_COLORS = {"pq2_0": "#0072B2", "ptq1_0": "#D55E00", "tq1_0": "#009E73", "tq2_0": "#CC79A7"}
SOURCE_ORDER = ("pq2_0", "ptq1_0", "tq1_0", "tq2_0")


def layout_family(layout, source):
    """'stock' for the source file's own layout, else the layout's name without its source suffix (t2p_tq2 -> t2p)."""
    if layout == source:
        return "stock"
    for suffix in ("_tq1", "_tq2"):
        if layout.endswith(suffix):
            return layout[:-len(suffix)]
    return layout


def family_color(layout, source):
    return FAMILY_COLORS.get(layout_family(layout, source), OTHER_COLOR)


def source_color(source):
    return SOURCE_COLORS.get(source, OTHER_COLOR)


def source_key(source):
    """Sort key: the four source files in their usual order, any other after them."""
    return (SOURCE_ORDER.index(source) if source in SOURCE_ORDER else len(SOURCE_ORDER), source)


def is_reference(kernel):
    return kernel.endswith("_ref")


def fastest_per_layout(cases):
    """Of the cases (one op), the fastest non-reference kernel per source file, layout, shape, batch, threads and
    pool (median Gweights/s): the pick the layout chart and the roofline show by default."""
    best = {}
    for c in cases:
        if is_reference(c.kernel):
            continue
        key = (c.source, c.layout, c.shape, c.batch, c.threads, c.pool)
        if key not in best or c.median("gweights_s") > best[key].median("gweights_s"):
            best[key] = c
    return list(best.values())


def shown_note(run, shown):
    """The line a plot's title gets when it shows only the leading series."""
    every = len({(c.kernel, c.shape, c.batch) for c in run.bench.cases if c.pool == "persistent"})
    batches = sorted({b for _, _, b in shown if b > 1})
    at = f" (gemm: batch {' and '.join(map(str, batches))})" if batches else ""
    return (f"{len(shown)} of {every} series shown: the fastest per source file and op{at}, and the stock gemv "
            f"(summary.md has all)")


def run_colors(run):
    """Kernel colours for a run, the same in every plot of it; the kernels of the leading series first, so that
    those a plot shows keep distinct colours when there are more kernels than colours."""
    names = sorted({c.kernel for c in run.bench.cases})
    shown = leading_series(run)
    if shown is None:
        return kernel_colors(names)
    first = sorted({k for k, _, _ in shown})
    cmap = plt.get_cmap("tab20")
    return {n: cmap(i % cmap.N) for i, n in enumerate(first + [n for n in names if n not in first])}


class LabelPlacer:
    """Writes labels beside points, trying positions around each (then further out, with a leader line)
    until the label overlaps no earlier label, no point and no artist in `avoid` (lines, legends), and stays
    inside the axes. The axes' limits and position must be final before it is made."""

    DIRS = [(1, 0.3, "left", "bottom"), (1, -0.3, "left", "top"), (-1, 0.3, "right", "bottom"),
            (-1, -0.3, "right", "top"), (0, 1, "center", "bottom"), (0, -1, "center", "top"),
            (1, 1, "left", "bottom"), (1, -1, "left", "top"), (-1, 1, "right", "bottom"), (-1, -1, "right", "top")]

    ATTEMPTS = 4000   # annotations tried in all; past that, labels go straight to their first position

    def __init__(self, ax, points, avoid=()):
        self.ax = ax
        self.attempts = 0
        ax.figure.canvas.draw()
        self.renderer = ax.figure.canvas.get_renderer()
        self.inside = ax.get_window_extent(self.renderer)
        taken = []
        for x, y in points:
            px, py = ax.transData.transform((x, y))
            taken.append(Bbox.from_bounds(px - 4, py - 4, 8, 8))
        owners = [-1] * len(taken)   # which artist of `avoid` a box covers: a line's own name may touch it
        for i, artist in enumerate(avoid):
            boxes = _obstacles(artist, self.renderer)
            taken += boxes
            owners += [i] * len(boxes)
        self.avoid = list(avoid)
        # every box taken as one array of (x0, y0, x1, y1): a candidate is checked against all at once
        self.taken = np.array([_ordered(b) for b in taken]).reshape(-1, 4)
        self.owners = np.array(owners, dtype=int)

    def free(self, box, ignore=None):
        """Whether box overlaps no box taken (Bbox.overlaps' test, edges touching count as overlapping), but
        those of the artist `ignore`."""
        x0, y0, x1, y1 = _ordered(box)
        t = self.taken
        hit = (t[:, 0] <= x1) & (x0 <= t[:, 2]) & (t[:, 1] <= y1) & (y0 <= t[:, 3])
        if ignore is not None and ignore in self.avoid:
            hit &= self.owners != self.avoid.index(ignore)
        return not np.any(hit)

    def take(self, box):
        self.taken = np.vstack([self.taken, _ordered(box)])
        self.owners = np.append(self.owners, -1)

    def add(self, x, y, text, color, fontsize=7, radii=(5, 12, 22, 34, 50, 70)):
        ax, inside = self.ax, self.inside
        for radius in radii if self.attempts < self.ATTEMPTS and math.isfinite(x) and math.isfinite(y) else ():
            for dx, dy, ha, va in self.DIRS:
                self.attempts += 1
                ann = ax.annotate(text, (x, y), xytext=(dx * radius, dy * radius), textcoords="offset points",
                                  ha=ha, va=va, fontsize=fontsize, color=color,
                                  arrowprops=dict(arrowstyle="-", color=color, lw=0.5, alpha=0.7, shrinkA=0, shrinkB=3))
                ann.update_positions(self.renderer)
                box = Text.get_window_extent(ann, self.renderer).padded(1)   # the text only, not its leader line
                if (inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1
                        and self.free(box)):
                    self.take(box)
                    return
                ann.remove()
        self._fallback(x, y, text, color, fontsize)

    def add_on_line(self, line, xs, ys, text, color, slanted=False, fontsize=8.5):
        """A line's name at the first of the spots (xs, ys) on it where it is free of everything but that line:
        a flat line's above the spot, ending there; a slanted line's below-right of the spot, else above-left."""
        ax = self.ax
        sides = [((6, -4), "left", "top"), ((-6, 4), "right", "bottom")] if slanted else [((0, 3), "right", "bottom")]
        for x, y in zip(xs, ys) if self.attempts < self.ATTEMPTS else ():
            for offset, ha, va in sides:
                self.attempts += 1
                txt = ax.annotate(text, (x, y), xytext=offset, textcoords="offset points", ha=ha, va=va,
                                  fontsize=fontsize, color=color)
                box = txt.get_window_extent(self.renderer).padded(1)
                inside = self.inside
                if (inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1
                        and self.free(box, ignore=line)):
                    self.take(box)
                    return
                txt.remove()
        self._fallback(xs[0], ys[0], text, color, fontsize)

    def _fallback(self, x, y, text, color, fontsize):
        # nowhere free: put it at the first position anyway, rather than lose it
        ann = self.ax.annotate(text, (x, y), xytext=(6, 2), textcoords="offset points", fontsize=fontsize, color=color)
        self.take(Text.get_window_extent(ann, self.renderer))


def _ordered(box):
    """A box's extents with x0 <= x1 and y0 <= y1."""
    x0, y0, x1, y1 = box.extents
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


def _obstacles(artist, renderer):
    """Display-space boxes covering an artist: small boxes along a line's path, else its extent."""
    if hasattr(artist, "get_path") and hasattr(artist, "get_xydata"):
        pts = artist.get_transform().transform(artist.get_xydata())
        boxes = []
        for (x0, y0), (x1, y1) in zip(pts[:-1], pts[1:]):
            if not all(math.isfinite(v) for v in (x0, y0, x1, y1)):
                continue
            # a box every 3 pixels, at most a figure's width of them (a segment far off the axes is clipped)
            steps = max(1, min(2000, int(max(abs(x1 - x0), abs(y1 - y0)) / 3)))
            for i in range(steps + 1):
                x, y = x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps
                boxes.append(Bbox.from_bounds(x - 1.5, y - 1.5, 3, 3))
        return boxes
    return [artist.get_window_extent(renderer)]


def fmt(v):
    """A figure for a label: three significant digits, no exponent for everyday sizes."""
    return f"{v:.3g}" if v < 1000 else f"{v:,.0f}"


# How a flagged value is marked in every plot (harness/measure/method.md's flags): a ring around the point or
# above the bar, explained in the legend with the flag's own text.
FLAG_STYLE = {"ratio_above_1": dict(marker="o", color="red", what="red ring"),
              "above_compute_roof": dict(marker="D", color="purple", what="purple diamond"),
              "cache_resident": dict(marker="s", color="darkorange", what="orange square"),
              "low_outlier": dict(marker="v", color="teal", what="teal triangle")}


def flag_marks(ax, x, y, flags, size=12, **kw):
    """A ring per flag around (x, y); each further flag's mark goes outside the one before."""
    for i, f in enumerate(flags):
        st = FLAG_STYLE[f]
        ax.plot([x], [y], st["marker"], ms=size + 6 * i, mfc="none", mec=st["color"], mew=1.6, zorder=6,
                clip_on=False, **kw)


def flag_handles(labels):
    """Legend entries for the flags present: {flag: its text} -> [Line2D]."""
    from matplotlib.lines import Line2D
    out = []
    for f, text in labels.items():
        st = FLAG_STYLE[f]
        out.append(Line2D([], [], ls="none", marker=st["marker"], ms=10, mfc="none", mec=st["color"], mew=1.6,
                          label=f"{st['what']}: {text}"))
    return out


def flags_present(run, rows):
    """{flag: the run's text for it} for every flag some plotted row carries, in the order of runfolder.FLAGS."""
    from runfolder import FLAGS
    have = {f for r in rows for f in r.get("flags", "").split(",") if f}
    return {f: run.bench.flag_label(f) for f in FLAGS if f in have}


def plain_log_ticks(*axes):
    """Tick labels of log axes as plain text ('0.1', '10', '1000'): with text.parse_math off (mpl.py) the
    default labels would print their TeX source. Minor ticks get a label (2, 3, 5) only on a span of less
    than two decades, where the decades alone leave too few."""
    from matplotlib.ticker import FuncFormatter

    def major(v, _):
        return f"{v:g}"

    def minor(v, _, axis):
        lo, hi = sorted(axis.get_view_interval())
        if lo <= 0 or hi / lo >= 100:
            return ""
        lead = round(v / 10 ** math.floor(math.log10(v) + 1e-9), 6)
        return f"{v:g}" if lead in (2, 3, 5) else ""

    for axis in axes:
        axis.set_major_formatter(FuncFormatter(major))
        axis.set_minor_formatter(FuncFormatter(lambda v, pos, axis=axis: minor(v, pos, axis)))
