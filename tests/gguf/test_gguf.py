#!/usr/bin/python3
"""The GGUF commands on files written by make_gguf.py (run that first: make_gguf.py --out DIR).

  list    `ciot gguf` lists every tensor of each good file with its type, shape, bytes and layouts, and the
          JSON agrees with what the generator wrote
  check   `ciot check --gguf` ends "N passed, 0 failed" with passes for every ternary type; --tensors filters
  run     `ciot run --gguf` of every kernel this CPU runs, for a tensor of each ternary type, equals bit for bit
          an expected output computed here, in Python, from the generator's codes and scales: the activation
          quantizers and the canonical float order of kernels/formats.md / kernels/README-tq.md emulated in
          exact arithmetic, no ciot code involved
  broken  every broken file is refused by `ciot gguf`, `ciot check --gguf` and `ciot run --gguf` with one
          line on stderr and exit 2, and no sanitizer report

usage: test_gguf.py {list,check,run,broken} --dir DIR --ciot PATH [--emulator "qemu-aarch64 -cpu max"]
"""
import argparse
import json
import math
import os
import random
import re
import shlex
import struct
import subprocess
import sys
import tempfile
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_gguf as mg  # noqa: E402

FAILS = []
PASSES = [0]


def check(ok, what):
    if ok:
        PASSES[0] += 1
    else:
        FAILS.append(what)
        print("FAIL", what)
    return ok


class Ciot:
    def __init__(self, path, emulator):
        self.cmd = shlex.split(emulator) + [path] if emulator else [path]

    def __call__(self, *args, timeout=900):
        p = subprocess.run(self.cmd + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=timeout)
        return p.returncode, p.stdout, p.stderr


# ---- exact fp32 arithmetic ----

def f32(x):
    """x rounded to fp32 (x a double; double results of +, -, *, / on fp32 inputs round correctly twice)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def round_f32(q):
    """An exact rational rounded to the nearest fp32, ties to even (subnormals included)."""
    if q == 0:
        return 0.0
    sign, a = (-1 if q < 0 else 1), abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    quantum = Fraction(2) ** (max(e, -126) - 23)
    m = a / quantum
    n = math.floor(m)
    rest = m - n
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2):
        n += 1
    v = float(n * quantum)
    if v > 3.4028234663852886e38:
        v = math.inf
    return sign * v


def fmaf(a, b, c):
    return round_f32(Fraction(a) * Fraction(b) + Fraction(c))


def fp16_to_f32(bits):
    return struct.unpack("<e", struct.pack("<H", bits))[0]


def f32_to_fp16(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


# ---- the activation quantizers of kernels/formats.md ----

def q8_K(x):
    """One row -> [(d, qs[256])] per 256-block."""
    out = []
    for i in range(0, len(x), 256):
        blk = x[i:i + 256]
        amax, mx = 0.0, 0.0
        for v in blk:
            if abs(v) > amax:
                amax, mx = abs(v), v
        if amax == 0:
            out.append((0.0, [0] * 256))
            continue
        iscale = f32(-127.0 / mx)
        qs = [min(127, round(f32(iscale * v))) for v in blk]
        out.append((f32(1.0 / iscale), qs))
    return out


def q8_0(x):
    """One row -> [(fp16 d bits, qs[32])] per 32-block; roundf rounds halves away from zero."""
    out = []
    for i in range(0, len(x), 32):
        blk = x[i:i + 32]
        amax = max(abs(v) for v in blk)
        d = f32(amax / 127)
        idv = f32(1.0 / d) if d else 0.0
        qs = []
        for v in blk:
            p = f32(v * idv)
            qs.append(int(math.copysign(math.floor(abs(p) + 0.5), p)))
        out.append((f32_to_fp16(d), qs))
    return out


def expected(t, x_rows):
    """Canonical outputs [b][n] of tensor t (make_gguf.Tensor) for float activation rows."""
    K, rows, (bv, _) = t.ne[0], t.rows, mg.BLOCK[t.type]
    nb = K // bv
    out = []
    for x in x_rows:
        row_out = []
        if t.type == mg.T_PTQ1_0:
            y = q8_0(x)
            for n in range(rows):
                c = t.codes[n * K:(n + 1) * K]
                acc = [0.0] * 4
                for i in range(nb):
                    dw = fp16_to_f32(t.scales[n * nb + i])
                    for s in range(4):
                        dyb, qs = y[4 * i + s]
                        isum = sum((c[128 * i + 32 * s + e] - 1) * qs[e] for e in range(32))
                        acc[s] = fmaf(float(isum), f32(fp16_to_f32(dyb) * dw), acc[s])
                row_out.append(f32(f32(acc[0] + acc[1]) + f32(acc[2] + acc[3])))
        else:
            y = q8_K(x)
            for n in range(rows):
                c = t.codes[n * K:(n + 1) * K]
                acc = 0.0
                for i in range(nb):
                    dy, qs = y[bv * i // 256]
                    off = bv * i % 256
                    isum = sum((c[bv * i + e] - 1) * qs[off + e] for e in range(bv))
                    acc = fmaf(float(isum), f32(fp16_to_f32(t.scales[n * nb + i]) * dy), acc)
                row_out.append(acc)
        out.append(row_out)
    return out


# ---- the parts ----

def good_files(d):
    return [os.path.join(d, f) for f in sorted(mg.GOOD)]


def part_list(ciot, d, meta, tensors):
    for path in good_files(d):
        js = os.path.join(tempfile.mkdtemp(prefix="ciot-gguf-"), "out.json")
        rc, out, err = ciot("gguf", path, "--json", js)
        name = os.path.basename(path)
        check(rc == 0 and not err, "%s: ciot gguf exits 0 quietly (rc %d, %s)" % (name, rc, err.strip()))
        if rc:
            continue
        lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith("  ") and ln.split()}
        for t in tensors:
            ln = lines.get(t.name, "")
            want_type = mg.TYPE_NAME.get(t.type, "type %d" % t.type)
            shape = "%d x %d" % (t.rows, t.ne[0])
            size = str(len(t.data)) if t.type in mg.BLOCK else "?"
            check((" %s " % want_type) in ln and shape in ln and size in ln.split(),
                  "%s: tensor %s listed as %s %s %d bytes: %r" % (name, t.name, want_type, shape, len(t.data), ln))
        check("architecture bitnet" in out and "blocks 4" in out and "embedding 256" in out and
              "feed-forward 512" in out, "%s: architecture and dimensions in the summary" % name)
        check(re.search(r"^ternary: 30 tensors, %d weights" % sum(
            t.rows * t.ne[0] for t in tensors if t.type in mg.TERNARY), out, re.M) is not None,
              "%s: ternary totals" % name)
        with open(js) as f:
            j = json.load(f)
        check(j["architecture"] == "bitnet" and j["block_count"] == 4 and j["embedding_length"] == 256,
              "%s: JSON architecture and dimensions" % name)
        jt = {x["name"]: x for x in j["tensors"]}
        check(list(jt) == [t.name for t in tensors], "%s: JSON lists every tensor in file order" % name)
        align = j["alignment"]
        check(align == (64 if "align64" in name else 1 if "align1" in name else 32), "%s: alignment %d" % (name, align))
        for t in tensors:
            x = jt.get(t.name, {})
            ok = x.get("ne") == t.ne and x.get("type_id") == t.type and x.get("offset", 1) % align == 0
            if t.type in mg.BLOCK:
                ok = ok and x.get("bytes") == len(t.data)
            check(ok, "%s: JSON of %s: %r" % (name, t.name, x))
        layouts = {t: jt[t]["layouts"] for t in ("blk.0.attn_q.weight", "blk.1.attn_q.weight", "blk.2.attn_q.weight",
                                                 "blk.2.attn_k.weight", "blk.3.attn_q.weight",
                                                 "blk.3.ffn_up_exps.weight", "token_embd.weight")}
        check(layouts == {"blk.0.attn_q.weight": ["tq2_0", "t2p_tq2"], "blk.1.attn_q.weight": ["tq1_0", "tl3_tq1", "tl16_tq1"],
                          "blk.2.attn_q.weight": ["pq2_0", "t2x4", "t2p", "tl2"], "blk.2.attn_k.weight": ["pq2_0"],
                          "blk.3.attn_q.weight": ["ptq1_0", "tl3", "tl16"], "blk.3.ffn_up_exps.weight": [],
                          "token_embd.weight": []}, "%s: layouts per tensor %r" % (name, layouts))
        kq = [k for k in jt["blk.0.attn_q.weight"]["kernels"]]
        check(any(k["name"] == "t2p_tq2_gemv_ref" and k["available"] for k in kq) and
              all(k["layout"] in ("tq2_0", "t2p_tq2") for k in kq), "%s: kernels of a TQ2_0 tensor" % name)
        check(jt["rope_freqs.weight"]["known_type"] is False and jt["rope_freqs.weight"]["bytes"] is None and
              "unsupported type" in lines.get("rope_freqs.weight", ""), "%s: the unknown type is listed" % name)
        ter = j["totals"]["ternary"]
        check(ter["tensors"] == 30 and ter["bytes"] == sum(len(t.data) for t in tensors if t.type in mg.TERNARY),
              "%s: JSON ternary totals %r" % (name, ter))
        md = j["metadata"]
        check(md.get("test.i64") == -(1 << 40) and md.get("test.bool") is True and
              md.get("tokenizer.ggml.tokens") == {"array_of": "string", "count": mg.VOCAB} and
              md.get("bitnet.attention.head_count_kv") == 1, "%s: JSON metadata values" % name)


def part_check(ciot, d, meta, tensors):
    for path in good_files(d):
        name = os.path.basename(path)
        rc, out, err = ciot("check", "--gguf", path)
        m = re.search(r"^(\d+) passed, (\d+) failed, \d+ skipped$", out, re.M)
        check(rc == 0 and m and int(m.group(1)) > 0 and m.group(2) == "0" and out.rstrip().endswith(m.group(0)),
              "%s: ciot check --gguf ends N passed, 0 failed (rc %d): %s %s" % (name, rc, out[-300:], err))
        per_type = {}
        for ln in out.splitlines():
            f = re.match(r"^  (\S+)\s+(\w+)\s+\d+ x \d+\s+(\d+) passed, (\d+) failed$", ln)
            if f:
                per_type.setdefault(f.group(2), [0, 0])
                per_type[f.group(2)][0] += int(f.group(3))
                per_type[f.group(2)][1] += int(f.group(4))
        check(sorted(per_type) == ["pq2_0", "ptq1_0", "tq1_0", "tq2_0"] and
              all(p > 0 and f == 0 for p, f in per_type.values()),
              "%s: passes for every ternary type, no failure: %r" % (name, per_type))
    path = good_files(d)[0]
    rc, out, err = ciot("check", "--gguf", path, "--tensors", r"^blk\.1\.")
    checked = re.search(r"^(\d+) tensors checked, (\d+) skipped$", out, re.M)
    check(rc == 0 and checked and checked.group(1) == "7" and "blk.0." not in out,
          "--tensors '^blk\\.1\\.' checks the 7 matrices of block 1: %s" % out[-200:])
    rc, out, err = ciot("check", "--gguf", path, "--tensors", "(")
    check(rc == 2 and len(err.splitlines()) == 1 and "regex" in err, "a bad regex: one line, exit 2: %r" % err)
    rc, out, err = ciot("check", "--gguf", path, "--tensors", "no_such_tensor")
    check(rc == 2 and len(err.splitlines()) == 1, "a regex matching nothing: one line, exit 2: %r" % err)


def takers(ciot, path):
    """tensor name -> the kernels this CPU runs whose layout takes it (ciot gguf --json)."""
    js = os.path.join(tempfile.mkdtemp(prefix="ciot-gguf-takers-"), "g.json")
    rc, out, err = ciot("gguf", path, "--json", js)
    with open(js) as f:
        doc = json.load(f)
    return {t["name"]: [k["name"] for k in t["kernels"] if k["available"]] for t in doc["tensors"]}


def part_run(ciot, d, meta, tensors):
    for name in ("model-v3.gguf", "model-v3-align1.gguf"):
        run_file(ciot, os.path.join(d, name), tensors)


def run_file(ciot, path, tensors):
    tmp = tempfile.mkdtemp(prefix="ciot-gguf-run-")
    rng = random.Random(7)
    # TQ1_0 twice: 64 rows (its own blocks only) and 256 rows x 2 blocks (its TL3 layout too)
    picks = (("tq2_0", "blk.0.ffn_up.weight"), ("tq1_0", "blk.1.attn_k.weight"), ("tq1_0", "blk.1.ffn_down.weight"),
             ("pq2_0", "blk.2.ffn_up.weight"), ("ptq1_0", "blk.3.attn_v.weight"))
    by_name = {t.name: t for t in tensors}
    takes = takers(ciot, path)
    check(any(k.startswith("tl3_tq1_gemv") for k in takes["blk.1.ffn_down.weight"]) and
          any(k.startswith("tl16_tq1_gemv") for k in takes["blk.1.ffn_down.weight"]),
          "a 256-row TQ1_0 tensor is taken by the tl3_tq1 and tl16_tq1 kernels: %s" % takes["blk.1.ffn_down.weight"])
    for fmt, tname in picks:
        t = by_name[tname]
        K = t.ne[0]
        batch = 3
        x = [[f32(rng.uniform(-1, 1) * (r + 1)) for _ in range(K)] for r in range(batch)]
        x[1][:256] = [0.0] * 256  # a zero block: activation scale 0
        xp, yp = os.path.join(tmp, "x.bin"), os.path.join(tmp, "y.bin")
        with open(xp, "wb") as f:
            f.write(struct.pack("<%df" % (batch * K), *[v for row in x for v in row]))
        want = expected(t, x)
        want_bits = [struct.unpack("<I", struct.pack("<f", v))[0] for row in want for v in row]
        ran = 0
        for kname in takes[tname]:
            for b in (1, batch):
                if os.path.exists(yp):
                    os.remove(yp)
                if b == 1:
                    with open(xp, "wb") as f:
                        f.write(struct.pack("<%df" % K, *x[0]))
                else:
                    with open(xp, "wb") as f:
                        f.write(struct.pack("<%df" % (batch * K), *[v for row in x for v in row]))
                rc, out, err = ciot("run", "--kernel", kname, "--gguf", path, "--tensor", tname, "--act", xp,
                                    "--out", yp, "--batch", str(b))
                if not check(rc == 0, "run %s on %s batch %d exits 0 (rc %d: %s)" % (kname, tname, b, rc, err.strip())):
                    continue
                with open(yp, "rb") as f:
                    got = list(struct.unpack("<%dI" % (b * t.rows), f.read()))
                bad = [i for i in range(b * t.rows) if got[i] != want_bits[i]]
                check(not bad, "run %s on %s batch %d: %d of %d outputs differ from the Python reference, first at "
                      "%s" % (kname, tname, b, len(bad), b * t.rows, bad[:1]))
                ran += 1
        check(ran >= 2, "%s: at least one kernel ran at batch 1 and %d (%d runs)" % (fmt, batch, ran))
    # refusals: a kernel of another format, a shape its layout cannot take, no such tensor
    for args, what in ((["--kernel", "t2p_tq2_gemv_ref", "--tensor", "blk.1.attn_q.weight"], "another format"),
                       (["--kernel", "t2p_gemv_ref", "--tensor", "blk.2.attn_k.weight"], "10 rows for T2P"),
                       (["--kernel", "tq2_0_gemv_ref", "--tensor", "blk.3.ffn_up_exps.weight"], "a 3-D tensor"),
                       (["--kernel", "tq2_0_gemv_ref", "--tensor", "token_embd.weight"], "an F16 tensor"),
                       (["--kernel", "tq2_0_gemv_ref", "--tensor", "nope"], "no such tensor")):
        rc, out, err = ciot("run", *args, "--gguf", path, "--act", os.path.join(tmp, "x.bin"), "--out",
                            os.path.join(tmp, "y.bin"))
        check(rc == 2 and len(err.splitlines()) == 1, "run refuses %s with one line, exit 2: rc %d %r" % (what, rc, err))


def part_broken(ciot, d, meta, tensors):
    tmp = tempfile.mkdtemp(prefix="ciot-gguf-broken-")
    xp = os.path.join(tmp, "x.bin")
    with open(xp, "wb") as f:
        f.write(bytes(4 * 256))
    for kind in mg.BROKEN:
        path = os.path.join(d, "broken-%s.gguf" % kind)
        for args in (["gguf", path], ["check", "--gguf", path],
                     ["run", "--kernel", "tq2_0_gemv_ref", "--gguf", path, "--tensor", "blk.0.attn_q.weight",
                      "--act", xp, "--out", os.path.join(tmp, "y.bin")]):
            rc, out, err = ciot(*args)
            lines = err.splitlines()
            check(rc == 2 and len(lines) == 1 and path in lines[0] and not out and
                  "Sanitizer" not in err and "runtime error" not in err,
                  "%s (%s): ciot %s refuses with one line and exit 2: rc %d stderr %r stdout %r" % (
                      kind, mg.BROKEN[kind][0], args[0], rc, err[:300], out[:100]))


def part_bench(ciot, d, meta, tensors):
    """ciot bench --gguf: the cases are the file's tensors at their own shapes, every repetition paired."""
    tmp = tempfile.mkdtemp(prefix="ciot-gguf-bench-")
    path, js = os.path.join(d, "model-v3.gguf"), os.path.join(tmp, "bench.json")
    # a 4 MiB weight region (cache-resident, labelled so): what is tested is the file's tensors and shapes, and
    # the default region (4 x LLC, 4 GB on a VM that reports a 2 x 508 MiB L3) took most of the test's time
    rc, out, err = ciot("bench", "--gguf", path, "--tensors", r"blk\.2\.ffn_(down|up)", "--kernels",
                        "t2p_gemv_ref,pq2_0_gemv_ref", "--threads", "1", "--no-spawn", "--reps", "2", "--rep-ms", "1",
                        "--working-set", "4M", "--json", js)
    if not check(rc == 0, "bench --gguf exits 0 (rc %d: %s)" % (rc, err[-300:])):
        return
    with open(js) as f:
        doc = json.load(f)
    shapes = {t.name: (t.rows, t.ne[0]) for t in tensors}
    cases = doc["cases"]
    check(sorted({c["tensor"] for c in cases}) == ["blk.2.ffn_down.weight", "blk.2.ffn_up.weight"],
          "bench --gguf: the cases are the matching tensors: %s" % sorted({c["tensor"] for c in cases}))
    check(sorted({c["kernel"] for c in cases}) == ["pq2_0_gemv_ref", "t2p_gemv_ref"],
          "bench --gguf: every selected kernel that takes a PQ2_0 tensor")
    for c in cases:
        reps = c["repetitions"]
        check((c["rows"], c["K"]) == shapes[c["tensor"]] and len(reps) == 2 and
              all(r["probe_gbs"] > 0 and abs(r["ratio"] - r["kernel_gbs"] / r["probe_gbs"]) < 1e-3 for r in reps),
              "bench --gguf %s: the tensor's shape, two repetitions each with its probe sample and ratio" % c["name"])
        check(doc["schema"] == 3 and c["intensity"] > 0 and c["compute_family"] is None and
              all(r["bound"] == "bw" and r["ratio_to_bound"] == r["ratio"] and r["compute_gmacs"] is None for r in reps),
              "bench --gguf %s: a gemv's roof is the read ceiling, its ratio to it the read ratio" % c["name"])
    for args, what in ((["--gguf", os.path.join(d, "broken-bad-magic.gguf")], "a malformed file"),
                       (["--gguf", path, "--tensors", "no_such_tensor"], "no tensor matching"),
                       (["--gguf", path, "--shape", "64x256"], "--shape with --gguf"),
                       (["--tensors", "x"], "--tensors without --gguf")):
        rc, out, err = ciot("bench", *args, "--threads", "1")
        check(rc == 2 and len(err.strip().splitlines()) == 1, "bench refuses %s with one line, exit 2: rc %d %r" % (what, rc, err))


def part_replay(ciot, d, meta, tensors):
    """ciot replay --model F.gguf: exactly the file's 2-D ternary matrices but the embedding, in block order,
    on their real bytes, with the ops between them that its metadata describes (the whole token); a file
    whose metadata does not describe its attention replays the matvecs only and says so in one line;
    --dump-ops writes the matvecs as an op list that replays the same shapes."""
    tmp = tempfile.mkdtemp(prefix="ciot-gguf-replay-")
    path, js, ops = os.path.join(d, "model-v3.gguf"), os.path.join(tmp, "replay.json"), os.path.join(tmp, "m.ops")
    rc, out, err = ciot("replay", "--model", path, "--tokens", "1", "--ceiling-size", "4M", "--dispatch", "all",
                        "--json", js, "--dump-ops", ops)
    if not check(rc == 0, "replay --model F.gguf exits 0 (rc %d: %s)" % (rc, err[-400:])):
        return
    with open(js) as f:
        doc = json.load(f)
    matrices = [t for t in tensors if t.type in mg.TERNARY and len(t.ne) == 2 and t.name != "token_embd.weight"]
    want = {t.name[:-len(".weight")]: (t.rows, t.ne[0]) for t in matrices}
    static = [r for r in doc["runs"] if r["dispatch"] == "static"][0]
    token = [o["name"] for o in static["ops"]]
    check(doc.get("whole_token") is True and token[0] == "token_embd" and token[-1] == "argmax" and
          token.index("blk.0.attn_norm") < token.index("blk.0.attn_q") < token.index("blk.0.rope") <
          token.index("blk.0.attention") < token.index("blk.0.attn_output") < token.index("blk.0.attn_residual") <
          token.index("blk.0.ffn_norm") < token.index("blk.0.ffn_up") < token.index("blk.0.ffn_glu") <
          token.index("blk.0.ffn_down") < token.index("blk.0.ffn_residual") < token.index("output_norm") <
          token.index("output"),
          "replay: the whole token from the metadata, each op where it sits in the block: %s" % token[:16])
    static["ops"] = [o for o in static["ops"] if o["op_kind"] == "matvec"]
    got = {o["name"]: (o["rows"], o["K"]) for o in static["ops"]}
    check(got == want, "replay: the ops are exactly the file's 2-D ternary matrices but the embedding: %s" %
          sorted(set(got) ^ set(want)))
    names = [o["name"] for o in static["ops"]]
    blocks = [int(n.split(".")[1]) for n in names if n.startswith("blk.")]
    check(blocks == sorted(blocks) and names[-1] == "output", "replay: block order, the output projection last: %s" % names)
    check([o["name"] for o in static["ops"] if o["lm_head"]] == ["output"], "replay: output flagged lm_head")
    check(doc["ops_with_real_bytes"] == len(want), "replay: every op on the file's real bytes (%s of %d)" %
          (doc["ops_with_real_bytes"], len(want)))
    check("token_embd.weight" in doc["left_out"] and "3 or 4 dimensions" in doc["left_out"],
          "replay: the embedding and the 3-D tensor are said to be left out: %r" % doc["left_out"])
    fused = [o["name"] for r in doc["runs"] if r["dispatch"] == "fused" for o in r["ops"] if o["fused_ops"] > 1]
    check("blk.0.attn_q+attn_k+attn_v" in fused and "blk.0.ffn_gate+ffn_up" in fused,
          "replay: q+k+v and gate+up fused from the names: %s" % fused)
    kernels = {o["name"]: o["op_kernel"] for o in static["ops"]}
    # 10 and 64 rows: no tiled layout takes them; 256 rows of TQ1_0: its lookup layouts (TL3, TL16) do
    check(kernels["blk.2.attn_k"].startswith("pq2_0_gemv") and kernels["blk.1.attn_k"].startswith("tq1_0_gemv") and
          kernels["blk.1.attn_q"].startswith(("tl3_tq1_gemv", "tl16_tq1_gemv")),
          "replay: each op on a kernel of its own format that takes its shape: %s" % kernels)
    rc, out, err = ciot("replay", "--model", ops, "--tokens", "1", "--ceiling-size", "4M", "--dispatch", "static",
                        "--kernel", "pq2_0_gemv_ref", "--json", js)
    with open(js) as f:
        again = json.load(f) if rc == 0 else {"runs": []}
    back = {o["name"]: (o["rows"], o["K"]) for r in again["runs"] for o in r["ops"]}
    check(rc == 0 and back == want, "replay --dump-ops writes an op list that replays the same shapes (rc %d, %s)" %
          (rc, err[-200:]))
    # without attention.head_count the file does not describe its attention: its matvecs only, said once
    bare = os.path.join(tmp, "no-heads.gguf")
    mg.write(bare, [kv for kv in meta if not kv[0].startswith("bitnet.attention.")], tensors)
    rc, out, err = ciot("replay", "--model", bare, "--tokens", "1", "--ceiling-size", "4M", "--dispatch", "static",
                        "--json", js)
    with open(js) as f:
        plain = json.load(f) if rc == 0 else {"runs": []}
    said = [l for l in err.splitlines() if "replaying its matvecs only" in l]
    check(rc == 0 and len(said) == 1 and "attention" in said[0] and "whole_token" not in plain and
          {o["name"] for r in plain["runs"] for o in r["ops"]} == set(want),
          "replay: a file whose metadata does not describe its attention replays its matvecs only, said in one "
          "line (rc %d, %r)" % (rc, said))
    for args, what in ((["--model", os.path.join(d, "broken-bad-magic.gguf")], "a malformed file"),
                       (["--model", path, "--kernel", "ptq1_0_gemv_ref", "--ops", "7"], "a kernel of no replayed format")):
        rc, out, err = ciot("replay", *args, "--tokens", "1")
        check(rc == 2 and len(err.strip().splitlines()) == 1, "replay refuses %s with one line, exit 2: rc %d %r" %
              (what, rc, err))


PARTS = {"list": part_list, "check": part_check, "run": part_run, "broken": part_broken, "bench": part_bench,
         "replay": part_replay}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("part", choices=sorted(PARTS))
    ap.add_argument("--dir", required=True, help="the directory make_gguf.py wrote")
    ap.add_argument("--ciot", required=True)
    ap.add_argument("--emulator", default="", help="command prefix that runs ciot (cross builds)")
    args = ap.parse_args()
    with open(os.path.join(args.dir, "manifest.json")) as f:
        seed = json.load(f)["seed"]
    meta, tensors = mg.model(seed)
    PARTS[args.part](Ciot(args.ciot, args.emulator), args.dir, meta, tensors)
    print("%d passed, %d failed, 0 skipped" % (PASSES[0], len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
