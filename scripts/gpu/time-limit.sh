# Sourced after cuda-common.sh by the GPU scripts that run many steps in one run on a GPU machine (multi-gpu.sh,
# train-sweep.sh): a time limit, a runner that never starts a step it cannot finish, and the packing of everything
# into one tar at the end (one file to copy back). The caller sets T0=$SECONDS, TIME_LIMIT (seconds), WORK (where the steps
# write), SUMMARY, FINAL_OUT and TAR (the tar's name), and may set RESERVE (seconds kept for the end, default 15)
# and MIN (the fewest seconds worth starting a step with, default 20).
ts() { printf '[%s +%3ds]' "$(date -u +%H:%M:%S)" $((SECONDS - T0)); }
note() { printf '%s %s\n' "$(ts)" "$*" | tee -a "$SUMMARY"; }
left() { echo $((TIME_LIMIT - (SECONDS - T0))); }
# step NAME LIMIT CMD...: runs CMD with its output in $WORK/NAME.txt, for at most LIMIT seconds and never past the
# time limit; a step that would get under MIN seconds is skipped (status 125). The status and seconds go to the summary,
# and a failed step's first errors and last lines with them.
step() {
  local name=$1 limit=$2; shift 2
  local avail=$(( $(left) - ${RESERVE:-15} )) t0=$SECONDS rc
  if [ "$avail" -lt "${MIN:-20}" ]; then note "== $name: SKIPPED (time limit: $(left) s left of $TIME_LIMIT)"; return 125; fi
  [ "$limit" -gt "$avail" ] && limit=$avail
  mkdir -p "$(dirname "$WORK/$name.txt")"
  note "== $name (limit $limit s)"
  timeout --kill-after=10 "$limit" "$@" > "$WORK/$name.txt" 2>&1
  rc=$?
  note "   $name: exit $rc in $((SECONDS - t0)) s$([ $rc = 124 ] && echo " (TIMED OUT after $limit s)")"
  [ $rc != 0 ] && failure_lines "$WORK/$name.txt"     # cuda-common.sh's
  return $rc
}
pack() {
  trap - EXIT TERM INT
  note "packing $WORK -> $FINAL_OUT/$TAR (total $((SECONDS - T0)) s)"
  cp "$SUMMARY" "$FINAL_OUT/summary.txt" 2>/dev/null
  tar czf "$FINAL_OUT/$TAR" -C "$WORK" . 2>/dev/null
  ls -la "$FINAL_OUT"
}
# pack whatever happens: a call cut short by its limit still returns what its steps wrote
trap pack EXIT
trap 'note "stopped by a signal"; exit 143' TERM INT
