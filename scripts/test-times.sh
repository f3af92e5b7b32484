#!/usr/bin/env bash
# How long ./build.sh test takes on this machine, part by part, beside the project's targets: the whole suite once
# (its own summary gives each part's seconds), then the unit tests alone and one lesson alone, each through
# ./build.sh as a person runs them (with the set-up's check first). A measurement, not a test: it fails only when
# a part fails. Run it on an idle machine.
#
#   bash scripts/test-times.sh            the lessons short, as ./build.sh test runs them; lesson 05 alone
#   bash scripts/test-times.sh --full     the suite with full-length lessons
#   LESSON=08 bash scripts/test-times.sh  another lesson alone
#
# The table goes to stdout and to build/test-times.txt; each run's output to build/test-times/*.log.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

full=()
case "${1:-}" in
  --full) full=(--full) ;;
  -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  "") ;;
  *) die "test-times.sh: unknown argument '$1' (--full or nothing)" ;;
esac
lesson=${LESSON:-05}
logs="$BUILD/test-times"
mkdir -p "$logs"
"$ROOT/build.sh" setup >/dev/null   # the set-up once, outside the times

# timed NAME ARGS...: ./build.sh test ARGS, its output in $logs/NAME.log; prints the seconds
timed() {
  local name=$1 start=$EPOCHREALTIME
  shift
  say "-- ./build.sh test $*" >&2
  "$ROOT/build.sh" test "$@" >"$logs/$name.log" 2>&1 || { echo "FAILED: ./build.sh test $* (see $logs/$name.log)" >&2; exit 1; }
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

whole=$(timed all "${full[@]}")
unit=$(timed unit unit)
one=$(timed "lesson-$lesson" "${full[@]}" "$lesson")
own=$(sed -n 's/.*instructor ([a-z]*) \([0-9.]*\) s, student ([a-z]*) \([0-9.]*\) s.*/\1 \2/p' "$logs/lesson-$lesson.log" | head -1)
own=$(echo "$own" | awk '{ printf "%.1f", $1 + $2 }')
{
  say "./build.sh test ${full[*]} on $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$ROOT" rev-parse --short HEAD)"
  say "the whole suite: $whole s (target 600 s); its parts:"
  sed -n '/seconds per part:/,$p' "$logs/all.log" | tail -n +2
  say "./build.sh test unit alone: $unit s (target 240 s)"
  say "./build.sh test $lesson alone: $one s; the lesson's own two versions $own s (target: own + 30 s = $(awk "BEGIN { print $own + 30 }") s)"
} | tee "$BUILD/test-times.txt"
