#!/usr/bin/python3
"""Each x86 compute-probe loop, as compiled, issues the multiplies it declares: the MACs per iteration that
`ciot compute --list` gives over the MACs one of its multiply instructions does (vpmaddubsw and vpdpbusd:
32 on ymm, 64 on zmm; an fp32 loop's vfmadd*ps: 8 on ymm, 16 on zmm) must equal the multiplies objdump finds
in ciot_compute_loop_NAME, whose loops are unrolled whole; an f16fma loop must widen (vcvtph2ps) one fp16
value per multiply-add, as its name says, and an fma32 loop none. A compiler that folds chains or steps started alike (clang can: a _b32 loop so
folded times above its plain row's rate) leaves fewer, and the roof it times is too high. Checked for every loop this binary has,
whether or not the CPU runs it. Ends with "N passed, M failed"."""
import re
import subprocess
import sys

ciot = sys.argv[1]
listing = subprocess.run([ciot, "compute", "--list"], capture_output=True, text=True, check=True).stdout
declared = {f[0]: int(f[1]) for f in (l.split("\t") for l in listing.splitlines()) if len(f) >= 4 and int(f[1]) > 0}
dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", ciot], capture_output=True, text=True, check=True).stdout
passed = failed = 0
for name, macs in sorted(declared.items()):
    m = re.search(r"<ciot_compute_loop_%s>:\n(.*?)\n\n" % re.escape(name), dis, re.S)
    body = m.group(1) if m else ""
    count = widened = 0
    fp32 = name.startswith(("fma32_", "f16fma_"))
    for line in body.splitlines():
        lanes = 16 if "%zmm" in line else 8 if "%ymm" in line else 4
        if fp32 and re.search(r"\svfmadd\w*ps\s", line):
            count += lanes
        elif fp32 and re.search(r"\svcvtph2ps\s", line):
            widened += lanes
        elif not fp32 and re.search(r"\s(vpmaddubsw|vpdpbusd)\s", line):
            count += 64 if "%zmm" in line else 32
    # an f16fma loop widens one fp16 operand per multiply-add, an fma32 loop none
    ok = m is not None and count == macs and widened == (macs if name.startswith("f16fma_") else 0)
    passed, failed = passed + ok, failed + (not ok)
    print("%s %s: %d MACs of multiplies in the loop (%d values widened from fp16), %d declared" %
          ("ok  " if ok else "FAIL", name, count, widened, macs))
if not declared:
    print("FAIL no compute loop listed")
    failed += 1
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
