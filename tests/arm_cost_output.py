"""scripts/arm-cost's output never replaces what its --out names when that is not a regular file: a link
to a descriptor (what /dev/stdout is) stays a link and the JSON goes through it, a FIFO stays a FIFO, a
regular file is replaced whole and a link to one keeps pointing at it. Ends "N passed, M failed"."""
import json, os, tempfile, threading

from script_checks import Checks, load_script

arm_cost = load_script("arm-cost")
check = Checks()


def parses_to(text, data):
    try:
        return json.loads(text) == data
    except (TypeError, ValueError):
        return False


with tempfile.TemporaryDirectory() as d:
    data = {"kernels": [1, 2]}
    # a link to this process's descriptor 1, as /dev/stdout is; descriptor 1 a pipe read by a thread
    r, w = os.pipe()
    saved = os.dup(1)
    os.dup2(w, 1)
    os.close(w)
    got = []
    reader = threading.Thread(target=lambda: got.append(os.read(r, 1 << 16)), daemon=True)
    reader.start()
    link = os.path.join(d, "stdout")
    os.symlink("/proc/self/fd/1", link)
    arm_cost.write_json(link, data)
    os.dup2(saved, 1)
    reader.join(10)
    check(os.path.islink(link) and os.readlink(link) == "/proc/self/fd/1", "a descriptor link stays a link")
    check(bool(got) and parses_to(got[0], data), "the JSON went through the descriptor")
    check(os.listdir(d) == ["stdout"], "no temporary file left beside it")

    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    out = []
    reader = threading.Thread(target=lambda: out.append(open(fifo).read()), daemon=True)
    reader.start()
    arm_cost.write_json(fifo, data)
    reader.join(10)  # a writer that replaced the FIFO never opens it: the reader would wait forever
    check(os.path.exists(fifo) and not os.path.isfile(fifo), "a FIFO stays a FIFO")
    check(bool(out) and parses_to(out[0], data), "the JSON went through the FIFO")

    regular = os.path.join(d, "cost.json")
    open(regular, "w").write("old")
    to_regular = os.path.join(d, "to-cost.json")
    os.symlink(regular, to_regular)
    arm_cost.write_json(to_regular, data)
    check(os.path.islink(to_regular) and json.load(open(regular)) == data, 
          "a link to a file keeps pointing at it, the file replaced")
    check(sorted(os.listdir(d)) == ["cost.json", "fifo", "stdout", "to-cost.json"], "no temporary file left")

check.finish()
