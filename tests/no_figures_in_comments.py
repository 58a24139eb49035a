"""Code comments say why, not what was measured or when: no measured figure and no history narration in a
comment of a code file (C, C++, the .def tables, CMake, Python with its docstrings, shell and the scripts).
Figures live in results/ (the run folders and results/kernel-bounds.md).

Caught in a comment, a phrase wrapped over two comment lines included:
  figure   a number with a rate, time or ratio unit: GB/s, GiB/s, MB/s, Gw/s, GMAC/s, Gop/s, GFLOP/s; ms, us,
           ns; a percentage other than 100 (24%, 1.5 %); a speed-up or slow-down such as 1.14x or 2x faster;
           a decimal count of ticks, cycles or instructions (297.6 ticks); a spread of decimals (85.4-86.9)
           and a decimal "against" another (19.5 against 17.6);
  history  "issue 23", "issues 20 and 23", "the Nth session" or "second session", "this/last session",
           "since the ... session/visit", "no <vendor> machine since", a date ("4 Dec").
Not caught: a bound the code applies (above 100%, within 2%, at least 50 ms, 80% or more), bit widths and
byte counts (8-bit, 64 bytes, 32 KiB), shapes (8 x 4, 4x4), a "%" inside a string literal, versions
(SSE4.1), the verb "issues", "second pass", and "round N": scripts/compare and the replay number their
interleaved rounds, so that is a term of the tools, not history.
Prints one line per self-test and per file scanned, then "N passed, M failed" (scripts/count-tests)."""
import ast, io, os, re, sys, tokenize

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_checks import Checks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SELF = os.path.abspath(__file__)  # this file names the patterns it catches
SKIP_DIRS = {".git", "build", "results", "data", "corpus", "testdata", "__pycache__"}
C_SUFFIXES = (".c", ".h", ".cc", ".def")
HASH_SUFFIXES = (".cmake", ".sh")

UNIT = r"(?:G|M|K|T)?(?:i?B|w|MAC|op|FLOP|ops|words?|weights?|tokens?|tok)/s"
FIGURE = re.compile(
    r"\d(?:[\d.,]*\d)?\s*" + UNIT + r"\b"                       # 43.1 GMAC/s, 12 GB/s
    r"|\d(?:[\d.]*\d)?\s*(?:ms|us|µs|ns)\b"                       # 3.2 ms, 40 us
    r"|(?<![\w.])(?!100\s*%)\d(?:[\d.]*\d)?\s*%(?!\s+or\s+(?:more|less|above|below))"  # 24%, 1.5 %
    r"|\b\d+\.\d+x(?![\w])"                                        # 1.14x
    r"|\b\d+x\s+(?:faster|slower|speed|as\s+fast|quicker)\b"       # 2x faster
    r"|\b\d+\.\d+\s*(?:ticks?|cycles?|instructions?)\b"            # 297.6 ticks
    r"|\b\d+\.\d+\s*-\s*\d+\.\d+\b"                                # 85.4-86.9 (a measured spread)
    r"|\b\d+\.\d+\s+against\s+\d",                                  # 19.5 against 17.6
    re.IGNORECASE)
ORDINALS = r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|" \
           r"thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|\d+(?:st|nd|rd|th))"
MONTHS = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)(?:[a-z]*ber|uary|ch|il|e|y|ust)?"
HISTORY = re.compile(
    r"\bissue\s+#?\d+\b"
    r"|\bissues\s+\d+(?:\s*,\s*\d+)*\s*(?:,|and)\s*\d+\b"
    r"|\b" + ORDINALS + r"\s+(?:session|visit)\b"
    r"|\b(?:this|last|previous|that)\s+session\b"
    r"|\bsince\s+the\s+[\w\s-]{0,30}?(?:session|visit)\b"
    r"|\bno\s+\w+\s+machine\s+since\b",
    re.IGNORECASE)
DATE = re.compile(r"\b\d{1,2}\s+" + MONTHS + r"\b")  # case-sensitive: "4 Dec", not "4 decimals"


def c_comments(text):
    """(line, comment text) of every // and /* */ comment, skipping string and character literals."""
    out, i, n, line = [], 0, len(text), 1
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            line += text.count("\n", i, j + 1)
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append((line, text[i + 2:j]))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j
            for k, part in enumerate(text[i + 2:j].split("\n")):
                out.append((line + k, part))
            line += text.count("\n", i, j)
            i = j + 2
        else:
            i += 1
    return out


def hash_comments(text):
    """(line, text) after a # that starts a word outside quotes (CMake, shell); not $# or ${#x}."""
    out = []
    for no, raw in enumerate(text.split("\n"), 1):
        quote = None
        for k, ch in enumerate(raw):
            if quote:
                if ch == "\\":
                    continue
                if ch == quote:
                    quote = None
            elif ch in "\"'":
                quote = ch
            elif ch == "#" and (k == 0 or raw[k - 1] in " \t;(") :
                out.append((no, raw[k + 1:]))
                break
    return out


def python_comments(text):
    """(line, text) of every # comment and every docstring line."""
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            out.append((tok.start[0], tok.string[1:]))
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                for k, part in enumerate(first.value.value.split("\n")):
                    out.append((first.lineno + k, part))
    return out


def kind_of(path):
    """'c', 'hash', 'python' or None (not a code file)."""
    name = os.path.basename(path)
    if name.endswith(C_SUFFIXES):
        return "c"
    if name.endswith(".py"):
        return "python"
    if name.endswith(HASH_SUFFIXES) or name == "CMakeLists.txt":
        return "hash"
    if "." in name or not os.access(path, os.X_OK):
        return None
    with open(path, "rb") as f:
        first = f.readline()
    if first.startswith(b"#!") and b"python" in first:
        return "python"
    return "hash" if first.startswith(b"#!") else None


THRESHOLD = re.compile(r"\b(?:above|below|within|under|over|least|most|lasts)\s+$", re.IGNORECASE)


def blocks(comments):
    """Runs of comment lines on consecutive source lines, each as (first line, [texts]): a phrase wrapped
    over two lines ("third\n * session") is matched whole."""
    out = []
    for line, text in comments:
        if out and out[-1][0] + len(out[-1][1]) == line:
            out[-1][1].append(text)
        else:
            out.append((line, [text]))
    return out


def offences(comments):
    """'line: what 'match': text' for every figure or history in the comments. A figure after "above", "below",
    "within", "at least", "lasts" (or a percentage before "or more") is a bound the code applies, not a
    measurement."""
    found = []
    for first, texts in blocks(comments):
        parts = [re.sub(r"^\s*\*?\s?", "", t).rstrip() for t in texts]
        joined = " ".join(parts)
        starts, pos = [], 0
        for part in parts:
            starts.append(pos)
            pos += len(part) + 1
        for what, pattern in (("figure", FIGURE), ("history", HISTORY), ("history", DATE)):
            for m in pattern.finditer(joined):
                if what == "figure" and THRESHOLD.search(joined[:m.start()]):
                    continue
                k = max(i for i, st in enumerate(starts) if st <= m.start())
                found.append(f"{first + k}: {what} '{m.group(0)}': {parts[k].strip()}")
    return sorted(set(found), key=lambda f: int(f.split(":")[0]))


def code_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for f in sorted(filenames):
            path = os.path.join(dirpath, f)
            kind = kind_of(path)
            if kind and os.path.abspath(path) != SELF:
                yield path, kind


READERS = {"c": c_comments, "hash": hash_comments, "python": python_comments}


def self_test(check):
    """The patterns catch what they name and pass what they must not: each case once."""
    caught = ["/* 24% of the paired read ceiling */", "// 43.1 GMAC/s at batch 4", "/* 1.14x tl2 */",
              "// takes 3.5 ms", "/* 12 us a call */", "/* 6.1 GB/s */", "/* 2.4 Gw/s */", "/* 80-100 Gweights/s */", "// 297.6 ticks",
              "/* issue 23 */", "/* issues 20, 22 and 23 */", "/* the fourth session */", "// no Intel machine since",
              "/* since the Zen 4 session */", "/* measured 4 Dec */", "/* the third\n * session */", "/* 85.4-86.9 at 1 thread */", "// 2x faster than the loop"]
    passed = ['printf("%d%% of rows\\n", x); /* rows */', "/* a ratio above 100%, within 2%, 80% or more */", "/* reps of at least 50 ms */", "/* an 8-bit lane, 64 bytes, 32 KiB */",
              "/* the 8 x 4 tile, 4x4 blocks */", "/* SSE4.1 and AVX-512 */", 'puts("round 3 issue 23");',
              "/* 16 lanes of 2 bits */", "/* x % 4 */", "/* the probe issues 2 per MAC */", "/* 4 decimals */", "/* a second pass */"]
    for s in caught:
        check(offences(c_comments(s)), f"self-test: caught {s!r}")
    for s in passed:
        check(not offences(c_comments(s)), f"self-test: passed {s!r}")
    check(offences(hash_comments("set(X 1)  # 24% faster")) and not offences(hash_comments('message("24%")')),
          "self-test: a # comment caught, a quoted string not")
    check(offences(python_comments('"""Takes 3 ms."""\nx = "5%"  # 1.2x\n')) and
          not offences(python_comments('x = "issue 5 at 5%"\n')), "self-test: docstring and comment caught, string not")


def main():
    check = Checks()
    self_test(check)
    for path, kind in code_files(ROOT):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        rel = os.path.relpath(path, ROOT)
        found = offences(READERS[kind](text))
        check(not found, f"{rel}: no figure or history in a comment")
        for line in found:
            print(f"     {rel}:{line}")
    check.finish()


if __name__ == "__main__":
    main()
