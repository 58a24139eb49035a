#!/usr/bin/env bash
# scripts/count-tests on made-up runs: a red configuration is never counted as 0 failed. A run that
# exited non-zero with no failing case in its file, a file that is missing or unreadable, and a
# configuration that never ran each count as a failure, are named, and make the exit code 1; a green run
# counts its cases and exits 0. Ends with "N passed, M failed".
set -u
count=$(dirname "$0")/../scripts/count-tests
work=$(mktemp -d "${TMPDIR:-/tmp}/ciot-count.XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() {   # check NAME CONDITION-STATUS DETAIL
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1: $3"; fi
}
cat >"$work/green.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="t" tests="3">
 <testcase name="test_unit" status="run"><system-out>ok
7 passed, 0 failed, 2 skipped</system-out></testcase>
 <testcase name="ciot_help" status="run"><system-out>usage</system-out></testcase>
 <testcase name="x86_needs_vnni" status="notrun"><system-out>SKIP: lacks avx512vnni</system-out></testcase>
</testsuite>
XML
printf '<testsuite><testcase name="test_x"' >"$work/torn.xml"   # cut short: a run that died writing it

# case NAME WANT-RC WANT-REGEX ARGS...: the closing line must match and the exit code be WANT-RC
case_() {
  local name=$1 want_rc=$2 want=$3; shift 3
  local out rc last
  out=$("$count" "$@" 2>&1); rc=$?
  last=$(printf '%s\n' "$out" | tail -n 1)
  check "$name: exit $want_rc" $([ "$rc" -eq "$want_rc" ]; echo $?) "exit $rc; output: $out"
  check "$name: closing line /$want/" $(printf '%s\n' "$last" | grep -Eq -- "$want"; echo $?) "closing line '$last'"
}
case_ "green run" 0 '^8 passed, 0 failed, 3 skipped$' a="$work/green.xml"
case_ "green run exiting 0" 0 '^8 passed, 0 failed, 3 skipped$' --exit a=0 a="$work/green.xml"
case_ "exit code 8, no failed case in the file" 1 '^8 passed, 1 failed, 3 skipped$' --exit a=8 a="$work/green.xml"
case_ "missing file" 1 '^8 passed, 1 failed, 3 skipped$' a="$work/green.xml" b="$work/none.xml"
case_ "torn file" 1 '^8 passed, 1 failed, 3 skipped$' a="$work/green.xml" b="$work/torn.xml"
case_ "a configuration that never ran" 1 '^0 passed, 1 failed, 0 skipped$' c=-
case_ "a log without its summary" 1 '^0 passed, 1 failed, 0 skipped$' f="$work/torn.log"
out=$("$count" --exit b=1 a="$work/green.xml" b="$work/none.xml" c=- 2>&1)
check "every red configuration named" $(printf '%s\n' "$out" | grep -q '^failed configurations: b, c$'; echo $?) "$out"
out=$("$count" --skip "m=hides nothing" a="$work/green.xml" 2>&1)
check "a configuration not run is named, counted as nothing" \
  $(printf '%s\n' "$out" | grep -q '^m: not run: hides nothing$' && printf '%s\n' "$out" | tail -n 1 | grep -q '^8 passed, 0 failed, 3 skipped$'; echo $?) "$out"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
