#!/usr/bin/env bash
# expect.sh RC out|err REGEX CMD [ARGS...]: runs CMD and passes only when it exits RC and the last line it
# wrote to that stream matches REGEX (grep -E). ctest's PASS_REGULAR_EXPRESSION ignores the exit code
# and matches any line; this checks both, on the line a summary or an error message must be.
set -u
want_rc=$1 stream=$2 regex=$3
shift 3
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
rc=$?
cat "$out"
cat "$err" >&2
if [ "$stream" = out ]; then last=$(tail -n 1 "$out"); else last=$(tail -n 1 "$err"); fi
if [ "$rc" -ne "$want_rc" ]; then
  echo "expect.sh: exit code $rc, expected $want_rc" >&2
  exit 1
fi
if ! printf '%s\n' "$last" | grep -Eq -- "$regex"; then
  echo "expect.sh: the last line of std$stream is '$last', expected /$regex/" >&2
  exit 1
fi
echo "expect.sh: exit code $rc and last line of std$stream as expected"
