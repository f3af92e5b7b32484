#!/usr/bin/env bash
# What the grading sandbox costs: the same class (STUDENTS copies of lesson 01's right answer, from the grader's
# test fixtures) graded with and without the bubblewrap sandbox, in alternating rounds on this machine, then the
# mean seconds per student of each and their ratio. A measurement, not a test. Run it on an idle machine.
#
#   bash scripts/grade-sandbox-cost.sh            ROUNDS=3 STUDENTS=4 by default
#   OUT=results/grading-sandbox bash scripts/grade-sandbox-cost.sh   also writes OUT/times.csv
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
case "${1:-}" in -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac

rounds=${ROUNDS:-3}
students=${STUDENTS:-4}
fixtures="$ROOT/toolkit/src/test/resources/org/mpi2nccl/grade"
"$ROOT/build.sh" setup >/dev/null
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpi2nccl-grade-cost-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/class"
for i in $(seq 1 "$students"); do cp "$fixtures/class01/right.ipynb" "$tmp/class/student$i.ipynb"; done

csv="mode,round,student,seconds"
for r in $(seq 1 "$rounds"); do
  for mode in sandbox no-sandbox; do
    flag=(); [ "$mode" = no-sandbox ] && flag=(--no-sandbox)
    say "-- round $r, $mode"
    toolkit grade --source "$fixtures/lesson01-short.ipynb" --submissions "$tmp/class" --out "$tmp/out-$mode-$r" \
        "${flag[@]}" >"$tmp/log" 2>&1 || { cat "$tmp/log"; die "grading failed ($mode, round $r)"; }
    while read -r name marks secs _; do
      [ "$marks" = 1/1 ] || die "$name got $marks ($mode): the cost of a failing run says nothing"
      csv+=$'\n'"$mode,$r,$name,$secs"
    done < <(grep -E '^student[0-9]+ ' "$tmp/log")
  done
done
printf '%s\n' "$csv" | awk -F, 'NR > 1 { s[$1] += $4; n[$1]++ }
  END { a = s["sandbox"] / n["sandbox"]; b = s["no-sandbox"] / n["no-sandbox"];
        printf "per student: sandboxed %.2f s, unsandboxed %.2f s (%d runs each): %.2fx\n", a, b, n["sandbox"], a / b }'
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT"; printf '%s\n' "$csv" > "$OUT/times.csv"; say "times in $OUT/times.csv"; fi
