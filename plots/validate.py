"""The typed, bounded reading of ciot's JSON files that every plot input shares (run folder and replay alike).

Every problem becomes one InputError naming the file and what is wrong (the key too, for a bad value), so
the scripts can print one line and exit non-zero instead of a traceback.
"""
import json
import math
import os
import statistics

STAT_NAMES = ("min", "median", "max")
MAX_FILE_BYTES = 256 << 20     # ciot writes a few MiB at most
MAX_ITEMS = 100_000            # results, benchmark entries, ops: far above any real run
MAX_RATE = 1e12                # GB/s, GOPS, Gweights/s, tokens/s: anything above is not a measurement
MAX_THREADS = 1 << 16
MAX_TEXT = 1000                # names and labels
MAX_DIM = 1 << 30
MAX_RATIO = 1e6                # a ratio that large is no measurement either

# The flags of harness/measure/method.md: wherever a ratio or a figure is shown, so is its flag.
FLAGS = ("ratio_above_1", "above_compute_roof", "cache_resident", "low_outlier")
FLAG_NAMES = {"ratio_above_1": "ratio above 100%", "above_compute_roof": "above the compute roof",
              "cache_resident": "cache-resident", "low_outlier": "probe outlier"}


class InputError(Exception):
    """A missing, empty or malformed input; str() is the whole message."""


def _fail(path, what):
    raise InputError(f"{path}: {what}")


def read_json(path):
    """Parsed JSON of a file, or InputError saying why it cannot be read."""
    if not os.path.exists(path):
        _fail(path, "missing")
    if os.path.isdir(path):
        _fail(path, "is a folder, not a file")
    if not os.path.isfile(path):
        _fail(path, "is not a regular file")
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        _fail(path, f"is {size >> 20} MiB, more than any run writes ({MAX_FILE_BYTES >> 20} MiB at most)")
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        _fail(path, f"cannot be read ({e.strerror})")
    if not raw.strip():
        _fail(path, "empty")
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        _fail(path, "not UTF-8 text")
    except json.JSONDecodeError as e:
        _fail(path, f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})")
    except RecursionError:
        _fail(path, "nested too deep to be a file ciot wrote")
    except ValueError as e:   # e.g. an integer of thousands of digits
        _fail(path, f"not valid JSON ({str(e)[:80]})")


# --- small typed getters: each names the file and the place inside it ---

def _place(where, key):
    return f"{where}, \"{key}\"" if where else f"\"{key}\""


def get(obj, key, kind, path, where):
    """obj[key] checked against kind ('str', 'int', 'num', 'bool', 'list', 'dict', 'bool|null')."""
    if not isinstance(obj, dict):
        _fail(path, f"{where or 'the top level'} is not a JSON object")
    if key not in obj:
        _fail(path, f"{where or 'the top level'} has no \"{key}\"")
    return check(obj[key], kind, path, _place(where, key))


def check(v, kind, path, where):
    ok = {
        "str": lambda: isinstance(v, str) and len(v) <= MAX_TEXT,
        "int": lambda: isinstance(v, int) and not isinstance(v, bool),
        "num": lambda: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v),
        "bool": lambda: isinstance(v, bool),
        "bool|null": lambda: v is None or isinstance(v, bool),
        "list": lambda: isinstance(v, list) and len(v) <= MAX_ITEMS,
        "dict": lambda: isinstance(v, dict),
    }[kind]()
    if not ok:
        names = {"num": "a finite number", "int": "an integer", "str": f"a string of at most {MAX_TEXT} characters",
                 "bool": "true or false", "bool|null": "true, false or null",
                 "list": f"a list of at most {MAX_ITEMS} items", "dict": "an object"}
        _fail(path, f"{where} is {_show(v)}, expected {names[kind]}")
    return v


def _show(v):
    """A value as it reads in the file, cut short."""
    if isinstance(v, (list, dict)) and len(v) > 8:
        return f"a {'list' if isinstance(v, list) else 'object'} of {len(v)} items"
    try:
        text = json.dumps(v)
    except (ValueError, RecursionError):
        text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def positive(v, path, where):
    if v <= 0:
        _fail(path, f"{where} is {v}, expected a positive number")
    return v


def in_range(v, lo, hi, path, where, lo_open=False):
    """v within [lo, hi] (or (lo, hi] with lo_open)."""
    if v < lo or v > hi or (lo_open and v == lo):
        _fail(path, f"{where} is {_show(v)}, expected a number {'above' if lo_open else 'from'} {lo:g} "
                    f"{'and at most' if lo_open else 'to'} {hi:g}")
    return v


def rate(obj, key, path, where):
    """A measured rate (GB/s, GOPS, Gweights/s, tokens/s): finite and in (0, MAX_RATE]."""
    return in_range(get(obj, key, "num", path, where), 0, MAX_RATE, path, _place(where, key), lo_open=True)


def count(obj, key, path, where, lo=1, hi=MAX_THREADS):
    """A count (threads, batch, tokens): an integer in [lo, hi]."""
    return in_range(get(obj, key, "int", path, where), lo, hi, path, _place(where, key))


def stats(obj, keys, path, where):
    """min / median / max rates under the given keys, ordered."""
    v = {s: rate(obj, k, path, where) for s, k in zip(STAT_NAMES, keys)}
    if not v["min"] <= v["median"] <= v["max"]:
        _fail(path, f"{where or 'the top level'}: {keys[0]} {v['min']:g}, {keys[1]} {v['median']:g}, "
                    f"{keys[2]} {v['max']:g} are not in order min <= median <= max")
    return v


def spread(vals):
    """min / median / max of a list (the median of an even count is the mean of the middle two)."""
    return {"min": min(vals), "median": statistics.median(vals), "max": max(vals)}


def ratio_value(obj, key, path, where):
    """A ratio (kernel GB/s over probe GB/s): finite, from 0 to MAX_RATIO."""
    return in_range(get(obj, key, "num", path, where), 0, MAX_RATIO, path, _place(where, key))


def flag_agrees(flag, value, limit):
    """A written flag 'value > limit' against the written (rounded) value: a value that rounds to the limit
    may carry either."""
    return flag == (value > limit) or value == limit
