#!/usr/bin/python3
"""Peer modules, against the test module (peers/fake_peer.c: the peer ABI over ciot's own references), since
CI has no runtime's source: `ciot peers` lists its types; `ciot check --peer` passes it and fails it when it is
made wrong on purpose (a dequantized weight off, one output off); `ciot bench --peer` gives its rows beside the
kernels with the same protocol keys, marked as a runtime's; scripts/peer-build refuses a tree it cannot use.
usage: tests/peers.py CIOT [EMULATOR...]"""
import json, os, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_checks import SCRIPTS, Checks, script_path

check = Checks()
ciot = sys.argv[2:] + [sys.argv[1]]
fake = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), "peers", "fake", "ciot-peer.so")


def run(*args, env=None, timeout=300):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run(ciot + list(args), capture_output=True, text=True, env=e, timeout=timeout)


p = run("peers", fake)
check(p.returncode == 0 and all(f"\n{t} " in p.stdout for t in ("q2_0", "tq1_0", "tq2_0")),
      "ciot peers lists the test module's three types")
check("module   fake" in p.stdout and "abi      1" in p.stdout, "ciot peers names the module by its folder and its ABI")

p = run("peers", "fake", env={"CIOT_PEER_DIR": os.path.dirname(os.path.dirname(fake))})
check(p.returncode == 0 and "module   fake" in p.stdout,
      "a NAME is found as NAME/ciot-peer.so (the OS's module suffix) under $CIOT_PEER_DIR" +
      ("" if p.returncode == 0 else ": " + p.stderr.strip()[-200:]))

p = run("check", "--peer", fake)
last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
check(p.returncode == 0 and last.endswith(" 0 failed, 0 skipped") and int(last.split()[0]) >= 3 * 14 * 7,
      f"check --peer passes the test module on every type, pattern, batch and thread count ({last})")
for broken, what in (("dequant", "dequantize"), ("mm", "mul_mat")):
    p = run("check", "--peer", fake, env={"CIOT_FAKE_PEER_BREAK": broken})
    fails = [l for l in p.stdout.splitlines() if l.startswith("FAIL ") and f" {what} " in l]
    check(p.returncode == 1 and fails, f"check --peer fails a module whose {what} is off ({len(fails)} cases)")

with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "bench.json")
    p = run("bench", "--kernels", "pq2_0_gemv_ref", "--peer", f"{fake}:q2_0", "--threads", "1", "--reps", "2",
            "--rep-ms", "1", "--no-spawn", "--batches", "4", "--shape", "256x1024", "--gemm-shape", "256x1024",
            "--working-set", "64M", "--json", out)
    check(p.returncode == 0, "bench --peer runs" + ("" if p.returncode == 0 else ": " + p.stderr[-300:]))
    cases = json.load(open(out))["cases"] if os.path.exists(out) else []
    peers = [c for c in cases if c.get("engine") == "peer"]
    ours = [c for c in cases if c.get("engine") == "ciot"]
    check(len(peers) == 2 and len(ours) == 1, f"the JSON has the runtime's gemv and gemm rows beside the kernel ({len(peers)} + {len(ours)})")
    check(all(c["kernel"] == "fake:q2_0" and c["source"] == "pq2_0" and c["peer"]["type"] == "q2_0" and
              c["peer"]["module"] == "fake" and c["bits_per_weight"] == 2.125 for c in peers),
          "a runtime row names its module and type, the file whose bytes it reads, and its bits per weight")
    check(all(len(c["repetitions"]) == 2 and all(r["probe_gbs"] > 0 for r in c["repetitions"]) for c in peers),
          "every repetition of a runtime row is paired with a read-probe sample")
    check(all(set(c) - {"peer"} == set(ours[0]) for c in peers) if ours else False,
          "a runtime row has every key a kernel row has")

with tempfile.TemporaryDirectory() as tmp:
    def build(*args):
        return subprocess.run([script_path("peer-build")] + list(args), capture_output=True, text=True, timeout=120)
    p = build(tmp)
    check(p.returncode == 2 and "not a ggml-family tree" in p.stderr, "peer-build refuses a folder without ggml's headers")
    os.makedirs(os.path.join(tmp, "ggml", "include"))
    open(os.path.join(tmp, "ggml", "include", "ggml.h"), "w").write("#error not a real ggml\n")
    p = build(tmp)
    check(p.returncode == 2 and "no built ggml libraries" in p.stderr, "peer-build refuses a tree whose runtime is not built")
    os.makedirs(os.path.join(tmp, "build", "bin"))
    open(os.path.join(tmp, "build", "bin", "libggml-base.so"), "w").close()
    name = "stand-in-" + str(os.getpid())
    p = build(tmp, name)
    shutil.rmtree(os.path.join(os.path.dirname(SCRIPTS), "build", "peers", name), ignore_errors=True)
    check(p.returncode == 2 and "does not compile" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
          "peer-build refuses, in one line, a tree the adapter does not compile against")
check.finish()
