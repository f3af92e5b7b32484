#!/usr/bin/env bash
# The kernel's tests over the Jupyter protocol, in two processes at once: test_faults.py (stalls, interrupts and
# floods, which spend most of their time waiting for a delay) with test_parent.py and test_secrets.py, beside the
# other test_*.py files (the two groups take about as long). Each test checks the processes of its own kernel only,
# so the two groups do not see each other. Each group's output is printed when both have ended; the status fails
# if either group failed.
#
#   JUPYTER_PATH=build/jupyter bash toolkit/src/test/jupyter/run_both.sh      (./build.sh test kernel runs it)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
logs=$(mktemp -d "${TMPDIR:-/tmp}/mpi2nccl-kernel-tests-XXXXXX")
pids=()
stop() { kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$logs"; }
trap 'stop; exit 130' INT TERM

group() { # group NAME MODULE...: one unittest process, its output in $logs/NAME
  local name=$1
  shift
  (cd "$here" && /usr/bin/python3 timed_tests.py "$@") >"$logs/$name" 2>&1 &
  pids+=($!)
}
first=(test_faults test_parent test_secrets)
rest=()
for f in "$here"/test_*.py; do
  m=$(basename "$f" .py)
  [[ " ${first[*]} " == *" $m "* ]] || rest+=("$m")
done
start=$SECONDS
group faults "${first[@]}"
group others "${rest[@]}"
status=0
wait "${pids[0]}" || status=1
wait "${pids[1]}" || status=1
for name in faults others; do
  echo "-- kernel tests: $name"
  cat "$logs/$name"
done
rm -rf "$logs"
echo "kernel tests: both groups ended in $((SECONDS - start)) s: $([ $status = 0 ] && echo ok || echo FAILED)"
exit $status
