#!/bin/bash
# The runner's self-test: tests/bad_inputs.py on table.tsv with fake-ciot must report every row failed for
# its own reason (one check of the runner per row), the stale known mark and the summary line.
# usage: run.sh PYTHON3
set -u
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
out=$("$1" ../bad_inputs.py --ciot ./fake-ciot --table table.tsv 2>&1)
rc=$?
echo "$out"
want=(
  "^FAIL  a-exit .*: exit 1, expected 2"
  "^FAIL  b-two .*: 2 lines on stderr, expected 1"
  "^FAIL  c-none .*: 0 lines on stderr, expected 1"
  "^FAIL  d-wrong .*: stderr does not match"
  "^FAIL  e-segv .*: killed by signal 11 \(SIGSEGV\)"
  "^FAIL  f-hang .*: no exit within 1 s \(killed\)"
  "^FAIL  g-san .*: a sanitizer report"
  "^FAIL  h-tmp .*: left behind: out\.json\.tmp\.123"
  "^FAIL  i-unchanged .*: f was changed"
  "^FAIL  j-absent .*: made exists"
  "^FAIL  k-link .*: l was changed: \('link', 'target'\) -> \('link', 'other'\)"
  "^FAIL  l-stdout .*: stdout does not match"
  "^FAIL  m-warn .*: no stderr line matches"
  "^FAIL  n-quiet .*: 1 lines on stderr, expected none"
  "^FAIL  o-core .*: left behind: core"
  "^FAIL  p-size .*: s holds 3 bytes, expected 4"
  "^FAIL  q-grep .*: j does not match"
  "^FAIL  r-known-passes .*: marked known \(someone fixed it\) but passes now"
  "^KNOWN s-known-fails .*: still broken"
  "^1 passed, 18 failed, 2 skipped$"
)
missing=0
for w in "${want[@]}"; do
  if ! grep -Eq -- "$w" <<<"$out"; then echo "run.sh: no line matches /$w/"; missing=$((missing + 1)); fi
done
if [ "$rc" -ne 1 ]; then echo "run.sh: the runner exited $rc, expected 1 (rows failed)"; missing=$((missing + 1)); fi
# A --ciot that is not there: one line and exit 2 before any row, not every row failed.
gone=$("$1" ../bad_inputs.py --ciot ./no-such-ciot --table table.tsv 2>&1)
gone_rc=$?
if [ "$gone_rc" -ne 2 ] || [ "$(wc -l <<<"$gone")" -ne 1 ] || ! grep -q "no-such-ciot does not exist" <<<"$gone"; then
  echo "run.sh: a missing --ciot gave exit $gone_rc and: $gone"; missing=$((missing + 1))
fi
[ "$missing" -eq 0 ] || exit 1
echo "run.sh: every check of the runner fired"
