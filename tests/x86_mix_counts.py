#!/usr/bin/python3
"""scripts/x86-mix counts what the kernel executes, and holds each kernel's declared multiply family to it.

1. t2p_gemm_avx2's 8 x 4 tile issues exactly one vpmaddubsw per 32 MACs at batch 4
   (kernels/x86/t2p_tile8x4_avx2.h), so its multiplies per 1000 MACs must read 31.25, and the kinds must add
   up to the total. A misread callgrind position or a wrong address-to-mnemonic map gives another count; a
   call's inclusive cost read as the caller's own makes x86-mix stop (its self counts must add up to
   callgrind's summary), and this test fail.
2. `x86-mix --check` over every AVX2 kernel valgrind runs, each gemm at batch 4 and either side of its
   mac_from batch: a kernel that declares lookup but multiplies (or the other way round), or declares the
   widening chain but sums in int16, makes it exit 1. That declaration picks the compute roof its gemm rows
   are judged by."""
import os
import subprocess
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ciot = sys.argv[1]
mix = os.path.join(root, "scripts", "x86-mix")
# one run serves both parts: --check runs every kernel, t2p_gemm_avx2 at batch 4 among them
out = subprocess.run([mix, "--ciot", ciot, "--check", "--batches", "4", "--rows", "256", "--cols", "1024",
                      "--top", "0"], capture_output=True, text=True)
print(out.stdout, out.stderr)
summary = [l for l in out.stdout.splitlines() if l.endswith(" differ") and "declarations checked" in l]
if summary and int(summary[0].split()[0]) == 0:
    sys.exit(77)  # no AVX2 on this CPU (or masked off): no kernel runs under valgrind; skipped, not passed
rows = [l.split() for l in out.stdout.splitlines() if l.startswith("t2p_gemm_avx2 ")]
row = next((r for r in rows if r[1] == "4"), None)
if row is None:
    sys.exit("x86-mix printed no t2p_gemm_avx2 row at batch 4 (exit %d)" % out.returncode)
total, vec, dot, widen, fmul, fother, vint, move, ldst, scalar = map(float, row[2:12])
fails = []
if not 31.2 <= dot <= 31.3:
    fails.append("multiplies per 1000 MACs %.1f, expected 31.25" % dot)
if abs(dot + widen + fmul + fother + vint - vec) > 0.3:
    fails.append("vector kinds %.1f do not add up to %.1f" % (dot + widen + fmul + fother + vint, vec))
if abs(vec + move + ldst + scalar - total) > 0.35:
    fails.append("kinds %.1f do not add up to the total %.1f" % (vec + move + ldst + scalar, total))
passed = 1 if not fails else 0

if out.returncode or not summary:
    fails.append("x86-mix --check: exit %d, %s" % (out.returncode, summary[0] if summary else "no summary line"))
else:
    n = int(summary[0].split()[0])
    if n < 20:  # every AVX2 gemv and gemm, gemms at 2-3 batches: fewer means kernels went unchecked
        fails.append("x86-mix --check judged only %d kernel-batch pairs" % n)
    else:
        passed += 1
print("\n".join(fails + ["%d passed, %d failed" % (passed, len(fails))]))
sys.exit(1 if fails else 0)
