#!/usr/bin/env bash
# SIGINT (and SIGTERM) in the middle of `ciot bw --json F` and `ciot compute --json F`: the process dies
# of the signal (status 128 + its number), the temporary F.tmp.<pid> that existed during the run is
# gone, and F was not written. usage: interrupt.sh CIOT [ARGS...] (e.g. qemu-aarch64 -cpu max build/ciot);
# ends with "N passed, M failed".
set -u
set -m   # background jobs in their own process group, with SIGINT not ignored (job control)
work=$(mktemp -d "${TMPDIR:-/tmp}/ciot-interrupt.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() {   # check NAME CONDITION-STATUS DETAIL
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1: $3"; fi
}

# interrupt SIGNAL NAME ARGS...: runs the command with --json, signals it once its temporary file exists.
interrupt() {
  local sig=$1 name=$2; shift 2
  local out="$work/$name.json"
  "$@" --json "$out" >"$work/$name.stdout" 2>"$work/$name.stderr" &
  local pid=$! waited=0
  while [ -z "$(ls "$work" | grep -F "$name.json.tmp.")" ] && [ $waited -lt 300 ]; do sleep 0.1; waited=$((waited + 1)); done
  local had_tmp=$(ls "$work" | grep -cF "$name.json.tmp.")
  if [ "$had_tmp" -eq 0 ] && ! kill -0 "$pid" 2>/dev/null && grep -q "none of the int8 families" "$work/$name.stderr"; then
    wait "$pid"
    echo "SKIP $name: this CPU has nothing to measure ($(head -n 1 "$work/$name.stderr")) (not counted)"
    return
  fi
  sleep 1   # into the measurements
  kill -s "$sig" "$pid"
  wait "$pid"
  local status=$? want=$((128 + $(kill -l "$sig")))
  check "$name: the temporary file existed during the run" $([ "$had_tmp" -ge 1 ]; echo $?) "none after 30 s"
  check "$name: the exit status says $sig ($want)" $([ "$status" -eq "$want" ]; echo $?) \
        "status $status; stderr: $(tail -n 2 "$work/$name.stderr")"
  check "$name: no temporary file is left" $([ -z "$(ls "$work" | grep -F .tmp.)" ]; echo $?) "$(ls "$work" | grep -F .tmp. | tr "\n" " ")"
  check "$name: no partial result" $([ ! -e "$out" ]; echo $?) "$out exists"
}

interrupt INT bw "$@" bw --size 8M --threads 1 --reps 100000 --ms 20
interrupt TERM bw-term "$@" bw --size 8M --threads 1 --reps 100000 --ms 20
interrupt INT compute "$@" compute --threads 1 --reps 100000 --ms 20
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
