#!/usr/bin/env bash
# needs_cpu.sh FEATURES CIOT... -- COMMAND...: runs COMMAND when this CPU, as CIOT_CPU masks it (what
# `CIOT... info` reports; CIOT may be an emulator and the program), has every feature of the comma list
# FEATURES; otherwise
# prints which it lacks and exits 77, which ctest counts as skipped (SKIP_RETURN_CODE). A test whose
# expectation needs features derives it from the CPU this way instead of assuming the machine it was written on.
set -u
needs=$1
shift
ciot=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do ciot+=("$1"); shift; done
[ $# -gt 1 ] || { echo "needs_cpu.sh: no '-- COMMAND' after the program" >&2; exit 2; }
shift
has=$("${ciot[@]}" info | awk '$1 == "features" { print $2; exit }')
[ -n "$has" ] || { echo "needs_cpu.sh: ciot info printed no features line" >&2; exit 2; }
lacks=()
IFS=, read -ra want <<<"$needs"
for f in "${want[@]}"; do
  [[ ",$has," == *",$f,"* ]] || lacks+=("$f")
done
if [ ${#lacks[@]} -gt 0 ]; then
  echo "SKIP: this CPU (features $has) lacks $(IFS=,; echo "${lacks[*]}")"
  exit 77
fi
exec "$@"
