#!/usr/bin/env bash
# Interruptions at many moments. Each command (bw with SIGINT and with SIGTERM, compute, bench, replay,
# suite) is started TRIES times (default 20) and signalled at a jittered moment: within the first
# milliseconds (before its handlers or its temporary file exist), just after its temporary file appears,
# or inside its measurements. Half the tries send a burst of ten copies of the signal instead of one: a
# second copy comes from timeout(1) (to the process, then to its group) or a second ^C, and ten cover the
# gaps at which it can come. Every try checks three cases:
# - the exit status is 128 + the signal's number: the process dies of the signal at every moment (before
#   its handler is installed the default action does it, which is the same status);
# - no *.tmp.* is left anywhere in the scratch folder;
# - no partial result: the output files do not exist; a suite's run folder, if made, is empty or marked
#   INCOMPLETE.
# Each command also checks that some of its tries caught a temporary file or its measurements, so the
# moments really are covered. usage: interrupt.sh CIOT [ARGS...] (e.g. qemu-aarch64 -cpu max build/ciot);
# under an emulator the runs that need gigabytes (bench, suite) are skipped. CIOT_INTERRUPT_TRIES and
# CIOT_INTERRUPT_SEED change the tries and the random moments. Ends with "N passed, M failed, K skipped".
set -u
set -m   # background jobs in their own process group, with SIGINT not ignored (job control)
shopt -s nullglob globstar
work=$(mktemp -d "${TMPDIR:-/tmp}/ciot-interrupt.XXXXXX")
trap 'rm -rf "$work"' EXIT
tries=${CIOT_INTERRUPT_TRIES:-20}
seed=${CIOT_INTERRUPT_SEED:-$$}
RANDOM=$seed
emulated=0
case "$1" in *qemu*) emulated=1 ;; esac
limit=$((emulated ? 120 : 30))   # seconds a command may take to reach a moment, or to die once signalled
echo "seed $seed (CIOT_INTERRUPT_SEED), $tries tries per command"
passed=0 failed=0 skipped=0

# Sleeps without starting a process (a read that times out on a FIFO nobody writes), so delays are
# milliseconds, not the cost of starting sleep(1).
mkfifo "$work/.pause"
exec {pause_fd}<>"$work/.pause"
pause() { read -r -t "$1" -u "$pause_fd" _; }
pause_ms() { local s; printf -v s '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); pause "$s"; }

check() {   # check NAME CONDITION-STATUS DETAIL: counted; printed when it fails
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $1: $3"; fi
}

# reached PID DIR WHAT: waits until WHAT holds, "tmp" (a temporary file under DIR) or a text on DIR/stderr;
# 1 when the process ended first or WHAT did not come within the limit.
reached() {
  local pid=$1 dir=$2 what=$3 s f n=0
  while :; do
    if [ "$what" = tmp ]; then
      f=("$dir"/**/*.tmp.*)
      [ ${#f[@]} -gt 0 ] && return 0
    else
      s=""
      IFS= read -r -d '' s <"$dir/stderr"
      [[ $s == *"$what"* ]] && return 0
    fi
    kill -0 "$pid" 2>/dev/null || return 1
    [ $((n += 1)) -gt $((limit * 500)) ] && return 1
    pause 0.002
  done
}

# started PID: waits until the child shell has become the program. A signal before that would hit a copy
# of this shell, which runs this script's EXIT trap; the moments that count start with the program.
shell=""
IFS= read -r -d '' shell </proc/$$/cmdline
started() {
  local argv0=$shell n=0
  while [ "$argv0" = "$shell" ] && [ $((n += 1)) -lt $((limit * 1000)) ]; do
    IFS= read -r -d '' argv0 <"/proc/$1/cmdline" || return 0   # gone already
    [ "$argv0" = "$shell" ] && pause 0.001
  done
}

# interrupt NAME SIGNAL MOMENTS -- CMD...: TRIES tries of CMD, run with DIR=$work/NAME (the text @DIR@ in
# CMD is replaced by it). MOMENTS, separated by '|', are ANCHOR@MS: try i signals a random 0 .. MS ms after
# moment i % (their number)'s ANCHOR: "start", "tmp" (a temporary file appeared under DIR) or a text on
# stderr; the last one is the text that says the measurements are on. The results it must not leave are
# DIR/*.json and a run folder DIR/results/*/ without its INCOMPLETE mark.
interrupt() {
  local name=$1 sig=$2 moments=() i c caught=0 measured=0 uses_tmp=0
  IFS='|' read -r -a moments <<<"$3"
  [[ "|$3" == *"|tmp@"* ]] && uses_tmp=1
  shift 4
  local want=$((128 + $(kill -l "$sig"))) dir="$work/$name" n=${#moments[@]}
  local measuring=${moments[n - 1]%@*}
  for ((i = 0; i < tries; i++)); do
    rm -rf "$dir"
    mkdir -p "$dir"
    : >"$dir/stderr"
    local cmd=("${@//@DIR@/$dir}") spec=${moments[i % n]}
    local anchor=${spec%@*} ms=$((RANDOM % (${spec##*@} + 1))) copies=$(((i / n) % 2 ? 10 : 1)) moment
    "${cmd[@]}" >"$dir/stdout" 2>"$dir/stderr" &
    local pid=$!
    started "$pid"
    moment="$ms ms after ${anchor/#start/the start}"
    moment=${moment/%after tmp/after its temporary file appeared}
    [ "$anchor" = start ] || reached "$pid" "$dir" "$anchor" || moment="$moment (it never came)"
    pause_ms "$ms"
    local tmp=("$dir"/**/*.tmp.*) s=""
    [ ${#tmp[@]} -gt 0 ] && caught=$((caught + 1))
    IFS= read -r -d '' s <"$dir/stderr"
    [[ $s == *"$measuring"* ]] && measured=$((measured + 1))
    local pids=()
    for ((c = 0; c < copies; c++)); do pids+=("$pid"); done
    kill -s "$sig" "${pids[@]}" 2>/dev/null
    # a process that outlives the signal is killed, so one failure does not hang the test
    (pause "$limit"; kill -s KILL "$pid" 2>/dev/null) &
    local watchdog=$!
    wait "$pid" 2>/dev/null
    local status=$?
    kill -s KILL "$watchdog" 2>/dev/null
    wait "$watchdog" 2>/dev/null
    local what="$name, try $((i + 1))/$tries: $copies x $sig $moment"
    check "$what: the exit status is $want" $([ "$status" -eq "$want" ]; echo $?) \
          "status $status; stderr: $(tail -n 2 "$dir/stderr" | tr '\r\n' '  ')"
    local left
    left=$(find "$work" -name '*.tmp.*' | tr "\n" " ")
    check "$what: no temporary file is left" $([ -z "$left" ]; echo $?) "$left"
    local partial=("$dir"/*.json) run
    for run in "$dir"/results/*/; do [ -e "$run/INCOMPLETE" ] || [ -z "$(ls -A "$run")" ] || partial+=("$run"); done
    check "$what: no partial result" $([ ${#partial[@]} -eq 0 ]; echo $?) "${partial[*]}"
  done
  rm -rf "$dir"
  # the moments really were reached: a test whose signals all came too early would prove little
  if [ "$uses_tmp" -eq 1 ]; then
    check "$name: signals came while a temporary file existed" $([ "$caught" -ge $((tries / n)) ]; echo $?) \
          "$caught of $tries"
  fi
  check "$name: signals came during the measurements" $([ "$measured" -ge $((tries / n)) ]; echo $?) \
        "$measured of $tries"
  echo "---- $name: $tries tries with $sig, $caught while a temporary file existed, $measured measuring"
}

ciot=("$@")
# bw on one thread, then on two: the handler alone in the process, then beside a pool's worker
bw=(bw --size 8M --reps 100000 --ms 20 --json @DIR@/bw.json)
interrupt bw INT 'start@60|tmp@20|ciot bw: [1/@200' -- "${ciot[@]}" "${bw[@]}" --threads 1
interrupt bw-term TERM 'start@60|tmp@20|ciot bw: [1/@200' -- "${ciot[@]}" "${bw[@]}" --threads 2
if "${ciot[@]}" compute --threads 1 --reps 1 --ms 1 2>&1 >/dev/null | grep -q "none of the int8 families"; then
  echo "SKIP compute: this CPU has nothing to measure"
  skipped=$((skipped + 1))
else
  interrupt compute INT 'start@60|tmp@20|ciot compute: [1/@200' -- \
    "${ciot[@]}" compute --threads 2 --reps 100000 --ms 20 --json @DIR@/compute.json
fi
# replay writes its file at the end only; early on, its output check makes and removes a temporary file
printf 'a 256 1024\nb 512 1024\nc 256 2048\n' >"$work/small.ops"
interrupt replay TERM 'start@60|ciot replay: allocating@200|token 1/@200' -- "${ciot[@]}" replay \
  --model "$work/small.ops" --memory full --tokens 100000 --dispatch static --threads 2 --ceiling-size 8M \
  --json @DIR@/replay.json
if [ "$emulated" -eq 1 ]; then
  for what in bench suite; do echo "SKIP $what: gigabytes of memory under the emulator"; skipped=$((skipped + 1)); done
else
  # bench: two temporary files (its JSON, and Google Benchmark's file, which that library opens by name)
  # while the pool's threads fill the buffers, then the measurements
  interrupt bench INT 'start@60|tmp@20|ciot bench: filling@1000|persistent rep 1:@200' -- "${ciot[@]}" bench \
    --kernels t2p_gemv_ref --threads 2 --no-spawn --shape 256x4096 --working-set 8M --reps 1000 \
    --json @DIR@/bench.json --benchmark_out=@DIR@/bench-gb.json
  # suite: INCOMPLETE and context.json through temporary files, then bw's
  interrupt suite INT 'start@100|tmp@30|ciot bw: warning@500|ciot bw: [1/@200' -- "${ciot[@]}" suite --quick \
    --results @DIR@/results
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
