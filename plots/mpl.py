"""Imports matplotlib headless (Agg). When this interpreter has no matplotlib (the python3 first on PATH
may not be Debian's), re-runs the script under one that has, or says in one line what to install."""
import os
import shutil
import subprocess
import sys

CANDIDATES = ("/usr/bin/python3", "python3")


def _has_matplotlib(py):
    try:
        return subprocess.run([py, "-c", "import matplotlib"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _reexec():
    if os.environ.get("CIOT_PLOTS_REEXEC"):   # already tried once: do not loop
        return
    here = os.path.realpath(sys.executable)
    for name in (os.environ.get("CIOT_PYTHON"),) + CANDIDATES:
        py = shutil.which(name) if name else None
        if py and os.path.realpath(py) != here and _has_matplotlib(py):
            os.environ["CIOT_PLOTS_REEXEC"] = "1"
            os.execv(py, [py] + sys.argv)


os.environ.setdefault("MPLBACKEND", "Agg")
try:
    import matplotlib
except ImportError:
    _reexec()
    sys.stderr.write(f"{os.path.basename(sys.argv[0])}: no Python 3 with matplotlib found (tried {sys.executable}, "
                     f"{', '.join(CANDIDATES)}); install Debian's python3-matplotlib (scripts/deps does)\n")
    sys.exit(2)

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Reproducible SVGs (no random ids, no date) whose text stays text, so it can be searched.
matplotlib.rcParams["svg.hashsalt"] = "ciot"
matplotlib.rcParams["svg.fonttype"] = "none"
matplotlib.rcParams["font.size"] = 9
# Names come from the input files: a '$' in a host or kernel name is text, not TeX to parse.
matplotlib.rcParams["text.parse_math"] = False
