#!/usr/bin/env python3
"""Draws every plot of one or more run folders: roofline, layouts, scaling, profile and (for a whole-token
replay) context into each run folder (or --out DIR), and compare when given two or more runs. A run
without replay.json gets no profile, one without a whole-token replay no context plot, and each says so;
any other problem is one line per distinct cause, and the exit status is 2."""
import os
import sys

import compare
import context
import layouts
import op_profile
import roofline
import scaling
from plotkit import ALL_KERNELS_HELP, ArgumentParser, at_least_one, output_base
from runfolder import InputError, Run

PROG = "render"
EVERY = None   # what a failure stops when a run folder cannot be read at all


def latest_run(results):
    """The newest run folder under results/ (names start with the UTC date and time)."""
    if not os.path.isdir(results):
        raise InputError(f"{results}: {'not a folder' if os.path.exists(results) else 'no such folder'}")
    runs = sorted(d for d in os.listdir(results) if os.path.isfile(os.path.join(results, d, "bench.json")))
    if not runs:
        raise InputError(f"{results}: no run folder (a folder with bench.json) in it")
    return os.path.join(results, runs[-1])


def main(argv=None):
    p = ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="*", metavar="RUN_DIR", help="run folders written by `ciot suite`")
    p.add_argument("--latest", metavar="RESULTS_DIR", help="also render the newest run folder under RESULTS_DIR")
    p.add_argument("--out", metavar="DIR", help="write every picture here instead of into the run folders")
    p.add_argument("--all-kernels", action="store_true", help=ALL_KERNELS_HELP)
    p.add_argument("--top", type=at_least_one, default=20, help="ops with a bar of their own in the profile (default 20)")
    args = p.parse_args(argv)
    per_run = (("roofline", lambda run, base: roofline.plot(run, base, args.all_kernels)),
               ("layouts", lambda run, base: layouts.plot(run, base, args.all_kernels)), ("scaling", scaling.plot),
               ("profile", lambda run, base: op_profile.plot(run, base, args.top)), ("context", context_plot))
    failures = {}   # message -> the plots it stopped (EVERY: all of a run folder's)

    def fail(message, what):
        failures.setdefault(message, []).append(what)

    paths = list(args.runs)
    if args.latest:
        try:
            paths.append(latest_run(args.latest))
        except InputError as e:
            fail(str(e), EVERY)
    if not paths and not failures:
        p.error("give at least one run folder (or --latest RESULTS_DIR)")
    runs = []
    for path in paths:
        try:
            runs.append(Run(path))
        except InputError as e:
            fail(str(e), EVERY)
    for run in runs:
        if run.incomplete:
            print(f"{PROG}: {run.path}: marked INCOMPLETE (the run did not finish); plotting the files it has")
        for name, plot in per_run:
            if name in ("profile", "context") and not run.has("replay.json"):
                if name == "profile":
                    print(f"{PROG}: {run.path}: no replay.json, so no profile")
                continue
            attempt(lambda: plot(run, output_base(run, name, args.out)), f"{name} of {run.name}", fail)
    if len(runs) > 1:
        attempt(lambda: compare.write_all(runs, args.out), "compare", fail)
    for message, what in failures.items():
        stopped = "nothing is drawn from it" if EVERY in what else f"so no {', '.join(what)}"
        print(f"{PROG}: {message}; {stopped}", file=sys.stderr)
    return 2 if failures else 0


def context_plot(run, base):
    """The context plot of a whole-token replay; a replay of the matvecs only has none, and says so."""
    if not run.replay.whole_token:
        print(f"{PROG}: {run.path}: replay.json replays the matvecs only, so no context plot")
        return
    context.plot(run, base)


def attempt(work, what, fail):
    try:
        work()
    except InputError as e:
        fail(str(e), what)
    except OSError as e:
        fail(f"{e.filename or ''}: {e.strerror}", what)
    except Exception as e:  # a bug, not the input: still one line
        fail(f"internal error: {type(e).__name__}: {e}", what)


if __name__ == "__main__":
    sys.exit(main())
