#!/usr/bin/env bash
# SIGINT (and SIGTERM) in the middle of `ciot bw`, `compute`, `bench` and `replay` with --json F: the
# process dies of the signal (status 128 + its number), the temporary F.tmp.<pid> that existed during the
# run is gone, and F was not written; and in the middle of `ciot suite`: no temporary file anywhere in
# its run folder, which keeps its INCOMPLETE mark. usage: interrupt.sh CIOT [ARGS...] (e.g. qemu-aarch64
# -cpu max build/ciot); under an emulator the runs that need gigabytes (bench, replay, suite) are
# skipped. Ends with "N passed, M failed, K skipped".
set -u
set -m   # background jobs in their own process group, with SIGINT not ignored (job control)
work=$(mktemp -d "${TMPDIR:-/tmp}/ciot-interrupt.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 skipped=0
check() {   # check NAME CONDITION-STATUS DETAIL
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1: $3"; fi
}

# interrupt SIGNAL NAME ARGS...: runs the command with --json, signals it once its temporary file exists
# (or, with WAIT_FOR set, once its stderr shows that text: replay writes its file only at the end).
interrupt() {
  local sig=$1 name=$2; shift 2
  local out="$work/$name.json"
  "$@" --json "$out" >"$work/$name.stdout" 2>"$work/$name.stderr" &
  local pid=$! waited=0
  if [ -n "${WAIT_FOR:-}" ]; then
    while ! grep -qF "$WAIT_FOR" "$work/$name.stderr" && [ $waited -lt 300 ]; do sleep 0.1; waited=$((waited + 1)); done
  else
    while [ -z "$(ls "$work" | grep -F "$name.json.tmp.")" ] && kill -0 "$pid" 2>/dev/null && [ $waited -lt 300 ]; do
      sleep 0.1; waited=$((waited + 1))
    done
  fi
  local had_tmp=$(ls "$work" | grep -cF "$name.json.tmp.")
  if [ "$had_tmp" -eq 0 ] && ! kill -0 "$pid" 2>/dev/null && grep -q "none of the int8 families" "$work/$name.stderr"; then
    wait "$pid"
    echo "SKIP $name: this CPU has nothing to measure ($(head -n 1 "$work/$name.stderr"))"
    skipped=$((skipped + 1))
    return
  fi
  if [ -n "${WAIT_FOR:-}" ]; then
    check "$name: reached '$WAIT_FOR'" $(grep -qF "$WAIT_FOR" "$work/$name.stderr"; echo $?) "not after 30 s"
  else
    check "$name: the temporary file existed during the run" $([ "$had_tmp" -ge 1 ]; echo $?) "none after 30 s"
  fi
  sleep 1   # into the measurements
  kill -s "$sig" "$pid"
  wait "$pid"
  local status=$? want=$((128 + $(kill -l "$sig")))
  check "$name: the exit status says $sig ($want)" $([ "$status" -eq "$want" ]; echo $?) \
        "status $status; stderr: $(tail -n 2 "$work/$name.stderr")"
  check "$name: no temporary file is left" $([ -z "$(ls "$work" | grep -F .tmp.)" ]; echo $?) "$(ls "$work" | grep -F .tmp. | tr "\n" " ")"
  check "$name: no partial result" $([ ! -e "$out" ]; echo $?) "$out exists"
}

# The suite: interrupted while it measures; its folder keeps INCOMPLETE and no temporary file.
interrupt_suite() {
  "$@" suite --quick --results "$work/results" >"$work/suite.stdout" 2>"$work/suite.stderr" &
  local pid=$! waited=0
  while [ -z "$(ls "$work/results" 2>/dev/null)" ] && [ $waited -lt 300 ]; do sleep 0.1; waited=$((waited + 1)); done
  sleep 3
  kill -s INT "$pid"
  wait "$pid"
  local status=$? dir
  dir=$(ls -d "$work"/results/*/ 2>/dev/null | head -n 1)
  check "suite: the exit status says INT (130)" $([ "$status" -eq 130 ]; echo $?) "status $status"
  check "suite: the run folder is marked INCOMPLETE" $([ -n "$dir" ] && [ -e "$dir/INCOMPLETE" ]; echo $?) "${dir:-no folder}"
  check "suite: no temporary file in the run folder" $([ -n "$dir" ] && [ -z "$(find "$dir" -name '*.tmp.*')" ]; echo $?) \
        "$(find "$work/results" -name '*.tmp.*' | tr "\n" " ")"
}

interrupt INT bw "$@" bw --size 8M --threads 1 --reps 100000 --ms 20
interrupt TERM bw-term "$@" bw --size 8M --threads 1 --reps 100000 --ms 20
interrupt INT compute "$@" compute --threads 1 --reps 100000 --ms 20
case "$1" in
  *qemu*) for what in bench replay suite; do echo "SKIP $what: gigabytes of memory under the emulator"; skipped=$((skipped + 1)); done ;;
  *)
    interrupt INT bench "$@" bench --kernels t2p_gemv_ref --threads 1 --no-spawn --reps 1000
    WAIT_FOR="token 2/" interrupt TERM replay "$@" replay --model tiny-0.6b --tokens 100000 --dispatch static
    interrupt_suite "$@" ;;
esac
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
