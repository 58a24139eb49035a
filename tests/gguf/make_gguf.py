#!/usr/bin/python3
"""Writes small GGUF files for the tests, with the Python standard library only and independently of ciot's
C code: the ternary blocks are packed here from the layouts of spec/formats.md (PQ2_0, PTQ1_0) and of ggml's
TQ1_0 / TQ2_0 (kernels/README-tq.md), from codes and scales drawn with a fixed seed, so a test can rebuild
the same model in memory and compute expected outputs from the drawn values.

Good files: a 4-block model (blocks in TQ2_0, TQ1_0, PQ2_0, PTQ1_0), F32 norms, an F16 token embedding, a
3-D ternary tensor, a tensor of a type ciot does not know, every metadata value type; as GGUF v3, v2, and v3
with general.alignment 64 and 1. Broken files: one defect each (see BROKEN).

usage: make_gguf.py --out DIR [--seed N]      (writes DIR/*.gguf and DIR/manifest.json)
       make_gguf.py --out DIR --tiny           (the fuzzer's seed files)
"""
import argparse
import json
import os
import random
import struct
import sys

GGUF_MAGIC = b"GGUF"
# metadata value types
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
SCALAR_FMT = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f", BOOL: "<?",
              U64: "<Q", I64: "<q", F64: "<d"}
# ggml tensor types written here: (id, values per block, bytes per block)
T_F32, T_F16, T_TQ1_0, T_TQ2_0, T_PQ2_0, T_PTQ1_0 = 0, 1, 34, 35, 142, 143
BLOCK = {T_F32: (1, 4), T_F16: (1, 2), T_TQ1_0: (256, 54), T_TQ2_0: (256, 66), T_PQ2_0: (128, 34),
         T_PTQ1_0: (128, 28)}
TYPE_NAME = {T_F32: "f32", T_F16: "f16", T_TQ1_0: "tq1_0", T_TQ2_0: "tq2_0", T_PQ2_0: "pq2_0",
             T_PTQ1_0: "ptq1_0"}
UNKNOWN_TYPE = 99
TERNARY = (T_TQ2_0, T_TQ1_0, T_PQ2_0, T_PTQ1_0)


# ---- block packing, from the formats' definitions ----

def fp16_bits(x):
    return struct.unpack("<H", struct.pack("<e", x))[0]


def pack5(u):
    """Five trits (u[0] most significant) into one byte: ceil(V * 256 / 243)."""
    v = ((((u[0] * 3 + u[1]) * 3 + u[2]) * 3 + u[3]) * 3 + u[4])
    return (v * 256 + 242) // 243


def pack_pq2_0(codes, d):
    """128 codes: weight k in qs[k >> 2] bits 2 (k & 3); fp16 d first."""
    qs = bytearray(32)
    for k, c in enumerate(codes):
        qs[k >> 2] |= c << (2 * (k & 3))
    return struct.pack("<H", d) + bytes(qs)


def pack_trits(codes, runs, nbytes):
    """Trit formats: runs of bytes (first, count, trits, base, stride); byte first + j holds, in trit n (0 =
    most significant), weight base + stride * n + j; a four-trit byte gets a zero fifth trit."""
    u = [[0] * 5 for _ in range(nbytes)]
    for first, count, trits, base, stride in runs:
        for j in range(count):
            for n in range(trits):
                u[first + j][n] = codes[base + stride * n + j]
    return bytes(pack5(x) for x in u)


def pack_ptq1_0(codes, d):
    """128 trits: k < 80 in byte k & 15 trit k >> 4; k < 120 in byte 16 + (t & 7) trit t >> 3 (t = k - 80);
    else qh[t & 1] trit t >> 1 (t = k - 120); fp16 d last."""
    return pack_trits(codes, ((0, 16, 5, 0, 16), (16, 8, 5, 80, 8), (24, 2, 4, 120, 2)), 26) + struct.pack("<H", d)


def pack_tq2_0(codes, d):
    """256 codes: weight 128h + 32n + m in byte 32h + m, bits 2n (ggml's TQ2_0); fp16 d last."""
    qs = bytearray(64)
    for k, c in enumerate(codes):
        h, n, m = k >> 7, (k >> 5) & 3, k & 31
        qs[32 * h + m] |= c << (2 * n)
    return bytes(qs) + struct.pack("<H", d)


def pack_tq1_0(codes, d):
    """256 trits: k < 160 in qs[k & 31] trit k >> 5; k < 240 in qs[32 + (t & 15)] trit t >> 4 (t = k - 160);
    else qh[t & 3] trit t >> 2 (t = k - 240); fp16 d last (ggml's TQ1_0)."""
    return pack_trits(codes, ((0, 32, 5, 0, 32), (32, 16, 5, 160, 16), (48, 4, 4, 240, 4)), 52) + struct.pack("<H", d)


PACK = {T_TQ2_0: pack_tq2_0, T_TQ1_0: pack_tq1_0, T_PQ2_0: pack_pq2_0, T_PTQ1_0: pack_ptq1_0}


class Tensor:
    """A tensor: ne (ne[0] = row length), a ggml type, its bytes; ternary ones keep their codes
    (rows x K, row-major) and fp16 scale bits (rows x blocks)."""

    def __init__(self, name, ttype, ne, data, codes=None, scales=None):
        self.name, self.type, self.ne, self.data = name, ttype, list(ne), data
        self.codes, self.scales = codes, scales

    @property
    def rows(self):
        r = 1
        for n in self.ne[1:]:
            r *= n
        return r


def ternary(rng, name, ttype, ne, code3=False):
    """Random codes (0..2, plus some 3 for the 2-bit types when code3) and scales in [0.001, 0.05)."""
    block = BLOCK[ttype][0]
    K = ne[0]
    rows = 1
    for n in ne[1:]:
        rows *= n
    top = 3 if code3 and ttype in (T_TQ2_0, T_PQ2_0) else 2
    codes = [rng.randint(0, top) if rng.random() < 0.1 else rng.randint(0, 2) for _ in range(rows * K)]
    scales = [fp16_bits(rng.uniform(0.001, 0.05)) for _ in range(rows * K // block)]
    data = b"".join(PACK[ttype](codes[i * block:(i + 1) * block], scales[i]) for i in range(rows * K // block))
    return Tensor(name, ttype, ne, data, codes, scales)


def f32_tensor(rng, name, ne):
    n = 1
    for d in ne:
        n *= d
    return Tensor(name, T_F32, ne, struct.pack("<%df" % n, *[rng.uniform(-1, 1) for _ in range(n)]))


def f16_tensor(rng, name, ne):
    n = 1
    for d in ne:
        n *= d
    return Tensor(name, T_F16, ne, struct.pack("<%de" % n, *[rng.uniform(-1, 1) for _ in range(n)]))


EMB, FFN, KV, VOCAB, BLOCKS = 256, 512, 64, 64, 4


def model(seed=1):
    """The test model: (metadata, tensors). Block b's matrices are of TERNARY[b]; blk.2's attn_k / attn_v
    have 10 rows (no 4-row layout takes them); blk.3 adds a 3-D expert tensor; rope_freqs has a type ciot
    does not know."""
    rng = random.Random(seed)
    meta = [
        ("general.architecture", STRING, "bitnet"),
        ("general.name", STRING, "ciot gguf test model"),
        ("general.file_type", U32, 1),
        ("bitnet.block_count", U32, BLOCKS),
        ("bitnet.context_length", U64, 2048),
        ("bitnet.embedding_length", U32, EMB),
        ("bitnet.feed_forward_length", I32, FFN),
        ("bitnet.attention.head_count", U16, 4),
        ("bitnet.attention.head_count_kv", U8, 1),
        ("bitnet.rope.freq_base", F32, 10000.0),
        ("bitnet.attention.layer_norm_rms_epsilon", F64, 1e-5),
        ("test.i8", I8, -5), ("test.i16", I16, -300), ("test.i64", I64, -(1 << 40)), ("test.bool", BOOL, True),
        ("tokenizer.ggml.model", STRING, "gpt2"),
        ("tokenizer.ggml.tokens", ARRAY, (STRING, ["tok%d" % i for i in range(VOCAB)])),
        ("tokenizer.ggml.scores", ARRAY, (F32, [float(-i) for i in range(VOCAB)])),
        ("tokenizer.ggml.token_type", ARRAY, (I32, [1] * VOCAB)),
    ]
    tensors = [f16_tensor(rng, "token_embd.weight", [EMB, VOCAB])]
    for b in range(BLOCKS):
        t = TERNARY[b]
        kv_rows = 10 if b == 2 else KV
        tensors.append(f32_tensor(rng, "blk.%d.attn_norm.weight" % b, [EMB]))
        for name, ne in (("attn_q", [EMB, EMB]), ("attn_k", [EMB, kv_rows]), ("attn_v", [EMB, kv_rows]),
                         ("attn_output", [EMB, EMB]), ("ffn_gate", [EMB, FFN]), ("ffn_up", [EMB, FFN]),
                         ("ffn_down", [FFN, EMB])):
            tensors.append(ternary(rng, "blk.%d.%s.weight" % (b, name), t, ne, code3=(name == "ffn_up")))
        tensors.append(f32_tensor(rng, "blk.%d.ffn_norm.weight" % b, [EMB]))
    tensors.append(ternary(rng, "blk.3.ffn_up_exps.weight", T_TQ2_0, [EMB, 8, 2]))
    tensors.append(f32_tensor(rng, "output_norm.weight", [EMB]))
    tensors.append(ternary(rng, "output.weight", T_TQ2_0, [EMB, VOCAB]))
    tensors.append(Tensor("rope_freqs.weight", UNKNOWN_TYPE, [32], bytes(range(64))))
    return meta, tensors


def tiny_model(seed=1):
    """A few hundred bytes: one block of each ternary type, small F32 / F16 tensors, a 3-D tensor, an
    unknown type, scalar and array metadata. The fuzzer's seeds (tests/fuzz/corpus/gguf)."""
    rng = random.Random(seed)
    meta = [("general.architecture", STRING, "bitnet"), ("bitnet.block_count", U32, 1),
            ("bitnet.embedding_length", U32, 256), ("test.f64", F64, 0.5), ("test.bool", BOOL, False),
            ("tokenizer.ggml.tokens", ARRAY, (STRING, ["a", "bc"])), ("tokenizer.ggml.scores", ARRAY, (F32, [0.5]))]
    tensors = [f32_tensor(rng, "blk.0.attn_norm.weight", [8]), f16_tensor(rng, "token_embd.weight", [4, 2])]
    for t, name in zip(TERNARY, ("attn_q", "attn_k", "attn_v", "ffn_up")):
        tensors.append(ternary(rng, "blk.0.%s.weight" % name, t, [BLOCK[t][0], 1], code3=True))
    tensors.append(ternary(rng, "blk.0.ffn_up_exps.weight", T_TQ2_0, [256, 1, 1]))
    tensors.append(Tensor("rope_freqs.weight", UNKNOWN_TYPE, [4], bytes(8)))
    return meta, tensors


# ---- the container ----

def gguf_string(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def gguf_value(vtype, value):
    if vtype == STRING:
        return gguf_string(value)
    if vtype == ARRAY:
        etype, items = value
        return struct.pack("<IQ", etype, len(items)) + b"".join(gguf_value(etype, v) for v in items)
    return struct.pack(SCALAR_FMT[vtype], value)


def align(n, a):
    return (n + a - 1) // a * a


def write(path, meta, tensors, version=3, alignment=None, fix=None, extra=()):
    """Writes a GGUF file and returns its bytes. alignment: written as general.alignment (u32) when given,
    else 32 is used. fix(info) may edit the layout before it is serialized: info holds 'version',
    'n_tensors', 'n_kv', 'meta', 'alignment' and per tensor 'name', 'n_dims', 'ne', 'type', 'offset',
    'data'."""
    a = alignment or 32
    meta = list(meta) + list(extra) + ([("general.alignment", U32, alignment)] if alignment else [])
    infos, off = [], 0
    for t in tensors:
        infos.append(dict(name=t.name, n_dims=len(t.ne), ne=list(t.ne), type=t.type, offset=off, data=t.data))
        off = align(off + len(t.data), a)
    info = dict(version=version, n_tensors=len(infos), n_kv=len(meta), meta=meta, tensors=infos, alignment=a)
    if fix:
        fix(info)
    out = bytearray(GGUF_MAGIC + struct.pack("<IQQ", info["version"], info["n_tensors"], info["n_kv"]))
    for key, vtype, value in info["meta"]:
        out += gguf_string(key) + struct.pack("<I", vtype) + gguf_value(vtype, value)
    for t in info["tensors"]:
        out += gguf_string(t["name"]) + struct.pack("<I", t["n_dims"])
        out += b"".join(struct.pack("<Q", n) for n in t["ne"][:max(t["n_dims"], 0)])
        out += struct.pack("<IQ", t["type"], t["offset"])
    base = align(len(out), info["alignment"])
    out += bytes(base - len(out))
    placed = [t for t in info["tensors"] if t["offset"] < 1 << 32]  # a broken offset places no data
    data = bytearray(max([t["offset"] + len(t["data"]) for t in placed] + [0]))
    for t in placed:
        data[t["offset"]:t["offset"] + len(t["data"])] = t["data"]
    out += data
    with open(path + ".tmp", "wb") as f:
        f.write(out)
    os.replace(path + ".tmp", path)
    return bytes(out)


# ---- broken variants ----

def fix(f):
    """A defect made by editing the layout before it is written."""
    return ("fix", f)


def raw(f):
    """A defect made by editing the bytes of the good v3 file."""
    return ("raw", f)


def tensor_named(info, name):
    return next(t for t in info["tensors"] if t["name"] == name)


def tensor_info_at(b, name):
    """Byte position of tensor `name`'s n_dims field."""
    key = struct.pack("<Q", len(name)) + name.encode()
    return b.index(key) + len(key)


def value_type_at(b, key):
    """Byte position of metadata `key`'s value type field."""
    k = struct.pack("<Q", len(key)) + key.encode()
    return b.index(k) + len(k)


def put(b, at, fmt, v):
    return b[:at] + struct.pack(fmt, v) + b[at + struct.calcsize(fmt):]


def set_field(key, value):
    def f(info):
        info[key] = value
    return f


def set_tensor(name, key, value):
    def f(info):
        tensor_named(info, name)[key] = value(tensor_named(info, name)[key]) if callable(value) else value
    return f


def add_meta(entry):
    def f(info):
        info["meta"].append(entry)
        info["n_kv"] += 1
    return f


def dup_name(info):
    info["tensors"][3]["name"] = info["tensors"][2]["name"]


def overlap(info):
    info["tensors"][2]["offset"] = info["tensors"][1]["offset"]


# name -> (what is wrong, how it is made); every one must be refused with one line and exit 2
BROKEN = {
    "empty": ("an empty file", raw(lambda b: b"")),
    "bad-magic": ("magic 'GGFU'", raw(lambda b: b"GGFU" + b[4:])),
    "bad-version-1": ("version 1", fix(set_field("version", 1))),
    "bad-version-4": ("version 4", fix(set_field("version", 4))),
    "big-endian": ("a byte-swapped version 3", fix(set_field("version", 0x03000000))),
    "truncated-header": ("cut inside the header", raw(lambda b: b[:18])),
    "truncated-metadata": ("cut inside the metadata", raw(lambda b: b[:300])),
    "truncated-infos": ("cut inside the tensor infos",
                        raw(lambda b: b[:tensor_info_at(b, "blk.1.attn_q.weight") + 6])),
    "truncated-data": ("cut inside the tensor data", raw(lambda b: b[:len(b) - 1000])),
    "absurd-tensor-count": ("a tensor count of 2^60", fix(set_field("n_tensors", 1 << 60))),
    "absurd-kv-count": ("a metadata count of 2^62", fix(set_field("n_kv", 1 << 62))),
    "absurd-array-count": ("an array count of 2^50",
                           raw(lambda b: put(b, value_type_at(b, "tokenizer.ggml.scores") + 8, "<Q", 1 << 50))),
    "string-past-end": ("a key length past the end",
                        raw(lambda b: put(b, b.index(b"general.name") - 8, "<Q", 1 << 40))),
    "unknown-value-type": ("a metadata value type 13", raw(lambda b: put(b, value_type_at(b, "general.name"), "<I", 13))),
    "nested-array": ("an array of arrays",
                     raw(lambda b: put(b, value_type_at(b, "tokenizer.ggml.scores") + 4, "<I", ARRAY))),
    "duplicate-key": ("two metadata keys of the same name", fix(add_meta(("general.name", STRING, "again")))),
    "alignment-3": ("general.alignment 3", fix(add_meta(("general.alignment", U32, 3)))),
    "alignment-string": ("general.alignment as a string", fix(add_meta(("general.alignment", STRING, "32")))),
    "n-dims-0": ("n_dims 0", fix(set_tensor("blk.1.attn_q.weight", "n_dims", 0))),
    "n-dims-5": ("n_dims 5", raw(lambda b: put(b, tensor_info_at(b, "blk.1.attn_k.weight"), "<I", 5))),
    "dim-zero": ("a dimension of 0", fix(set_tensor("blk.1.attn_k.weight", "ne", [EMB, 0]))),
    "elements-overflow": ("dimensions whose product overflows",
                          fix(set_tensor("blk.1.attn_k.weight", "ne", [1 << 40, 1 << 40]))),
    "row-not-block": ("a TQ2_0 row of 300 weights", fix(set_tensor("blk.0.attn_q.weight", "ne", [300, EMB]))),
    "name-nul": ("a tensor name holding a NUL byte", fix(set_tensor("blk.0.attn_q.weight", "name", "blk.0\0q"))),
    "duplicate-name": ("two tensors of the same name", fix(dup_name)),
    "misaligned": ("a data offset not a multiple of the alignment",
                   fix(set_tensor("blk.0.attn_q.weight", "offset", lambda o: o + 16))),
    "offset-past-end": ("a tensor offset past the end", fix(set_tensor("blk.0.attn_q.weight", "offset", 1 << 40))),
    "offset-overflow": ("a tensor offset near 2^64",
                        fix(set_tensor("blk.0.attn_q.weight", "offset", (1 << 64) - 32))),
    "overlap": ("two tensors on the same bytes", fix(overlap)),
}


def make_broken(kind, meta, tensors, path):
    how, f = BROKEN[kind][1]
    if how == "fix":
        return write(path, meta, tensors, fix=f)
    b = f(write(path, meta, tensors))
    with open(path, "wb") as out:
        out.write(b)
    return b


# align1: the data section starts right after the tensor infos, at an odd byte (test.odd makes the header
# length odd): tensor bytes are not aligned for the block structs, and the commands must copy them first
GOOD = {"model-v3.gguf": dict(version=3), "model-v2.gguf": dict(version=2),
        "model-v3-align64.gguf": dict(version=3, alignment=64),
        "model-v3-align1.gguf": dict(version=3, alignment=1, extra=[("test.odd", STRING, "x")])}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="directory for the files")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tiny", action="store_true", help="only the tiny seed files (for the fuzzer's corpus)")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    if args.tiny:
        meta, tensors = tiny_model(args.seed)
        for name, kw in GOOD.items():
            write(os.path.join(args.out, name.replace("model", "tiny")), meta, tensors, **kw)
        write(os.path.join(args.out, "tiny-no-tensors.gguf"), meta, [])
        return 0
    meta, tensors = model(args.seed)
    for name, kw in GOOD.items():
        write(os.path.join(args.out, name), meta, tensors, **kw)
    for kind in BROKEN:
        make_broken(kind, meta, tensors, os.path.join(args.out, "broken-%s.gguf" % kind))
    manifest = dict(seed=args.seed, good=sorted(GOOD), broken={k: v[0] for k, v in BROKEN.items()},
                    tensors=[dict(name=t.name, type=TYPE_NAME.get(t.type, "type %d" % t.type), ne=t.ne,
                                  bytes=len(t.data)) for t in tensors])
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
