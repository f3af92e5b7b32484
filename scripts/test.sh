#!/usr/bin/env bash
# ./build.sh test [--full] [PART|LESSON ...]: the tests, all of them or a part (run after scripts/setup.sh).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<EOF
usage: ./build.sh test [--full] [PART|LESSON ...]

With no PART, every part in this order (about 10 minutes on an idle 2-core machine):
  env       the GPU bundle's env.sh, sourced under set -euo pipefail as its commands source it
  unit      mvn test: the JUnit tests (two forks; one class: mvn test -Dtest=ClassName)
  kernel    the kernel over the Jupyter protocol: displays, magics, rank engines, faults, two students
  lessons   every lesson executed headless, each version once: the instructor version (answers in) must say
            RIGHT at every check and draw a plot, the student version must print every check's hint; even lessons
            run the instructor version through nbclient and the student version through mpi2nccl execute, odd
            lessons the other way round; lesson 01 runs again through the other runner and both runners must give
            the same verdicts; lesson 04's instructor version runs from a folder outside the repository and must
            show the GPU results the toolkit carries; two lessons run at a time, as two students on one
            machine; ./build.sh notebook's workspace
  answers   the table of wrong answers (notebooks/test/wrong-answers.json) through the lessons' own checks, in the
            kernel: every wrong answer must get NOT YET with the words its hint names, and the reference answer
            run right after the wrong ones must say RIGHT without a restart
  browser   the executed lessons rendered in Jupyter Notebook in headless Chromium (no output wider than the
            column, no error, no chart folded away, a chart in every lesson; screenshots in build/browser/), and
            lesson 01 run live there with Run All
  lab       (not in the default run; as root) the lab server as a class uses it: ./build.sh lab install, two
            students logged in through JupyterHub in Chromium running lessons 01 to 05 at once, an account
            that is not a student refused, and one student's attacks on the other's rank engines, files and
            answers (notebooks/test/lab/); accounts removed at the end
  LESSON    one lesson by number or name (05, 05-speedup): its two versions as in 'lessons', then rendered in
            the browser

Options:
  --full    lessons at full length (MPI2NCCL_LESSON_LENGTH=full: every round and epoch a student runs). Without
            it they run short: the fewest rounds and steps that still run every cell.
  -h, --help  this text; nothing runs

Executed lessons go to build/lessons-run/ (instructor/, student/, agreement/). CI runs everything with --full,
then the lessons short. scripts/test-times.sh times each part.
EOF
}

# lesson_file ARG: the lesson ARG names (05, 05-speedup, 05-speedup.ipynb or its path), or nothing (status 1).
lesson_file() {
  local name f
  name=$(basename "$1" .ipynb)
  for f in "$ROOT"/notebooks/[0-9][0-9]-*.ipynb; do
    case "$(basename "$f" .ipynb)" in "$name"|"$name"-*) printf '%s\n' "$f"; return 0 ;; esac
  done
  return 1
}

LENGTH=short
PARTS=()
LESSONS=()
CHECK_ONLY=0
for arg in "$@"; do
  case "$arg" in
    -h|--help|help) usage; exit 0 ;;
    --full) LENGTH=full ;;
    --check-args) CHECK_ONLY=1 ;;   # build.sh: the arguments checked before the set-up runs
    env|unit|kernel|lessons|answers|browser|lab) PARTS+=("$arg") ;;
    -*) die "test: unknown option '$arg'. Options: --full, --help." ;;
    *)
      found=$(lesson_file "$arg") || die "test: '$arg' is neither a part (env, unit, kernel, lessons, answers, browser, lab) nor a lesson
in notebooks/ (by number or name, e.g. 05 or 05-speedup). ./build.sh test --help lists them."
      LESSONS+=("$found") ;;
  esac
done
[ ${#PARTS[@]} -eq 0 ] && [ ${#LESSONS[@]} -eq 0 ] && PARTS=(env unit kernel lessons answers browser)
[ $CHECK_ONLY = 1 ] && exit 0

RUN_DIR="$BUILD/lessons-run"

# The bundle's env.sh, sourced the way its commands source it (set -euo pipefail): with no LD_LIBRARY_PATH, and
# with a folder holding a libnccl.so.2, which must come first. A failing line in it ends every bundle command
# silently.
test_env() {
  say "== bundle env.sh under set -euo pipefail"
  local fake got
  fake=$(mktemp -d)
  mkdir -p "$fake/nccl" && : > "$fake/nccl/libnccl.so.2"
  got=$(env -u LD_LIBRARY_PATH -u NCCL_HOME bash -euo pipefail -c "source '$ROOT/toolkit/src/bundle/bin/env.sh'; echo ok") \
    || { rm -rf "$fake"; die "bundle env.sh fails with no LD_LIBRARY_PATH set"; }
  got=$(env -u NCCL_HOME LD_LIBRARY_PATH="/nonexistent:$fake/nccl" bash -euo pipefail -c \
      "source '$ROOT/toolkit/src/bundle/bin/env.sh'; echo \"\$LD_LIBRARY_PATH\"") \
    || { rm -rf "$fake"; die "bundle env.sh fails with LD_LIBRARY_PATH=/nonexistent:$fake/nccl"; }
  rm -rf "$fake"
  case "$got" in "$fake/nccl:"*) echo "ok: the folder with libnccl.so.2 comes first ($got)";;
    *) die "bundle env.sh: expected the folder with libnccl.so.2 first on LD_LIBRARY_PATH, got '$got'";; esac
}

test_unit() {
  say "== unit and integration tests (mvn test)"
  (cd "$ROOT" && mvn -B test)
}

# The kernel's tests over the Jupyter protocol (jupyter_client), in two processes at once: the faults
# (test_faults.py: stalls, interrupts, floods; mostly waiting) beside everything else.
test_kernel() {
  say "== kernel tests over the Jupyter protocol"
  bash "$ROOT/toolkit/src/test/jupyter/run_both.sh"
}

# lessons_run FILE...: the lessons' two versions (run_lessons.py), executed copies in build/lessons-run/.
lessons_run() {
  (cd "$ROOT" && "$JUPYTER_PY" notebooks/test/run_lessons.py --out "$RUN_DIR" --length "$LENGTH" "$@")
}

test_lessons() {
  say "== lessons, each version once ($LENGTH length)"
  lessons_run "$ROOT"/notebooks/*.ipynb
  say "== ./build.sh notebook's workspace"
  (cd "$ROOT" && "$JUPYTER_PY" notebooks/test/outside_repo.py)
}

test_answers() {
  say "== wrong answers through the lessons' checks"
  (cd "$ROOT" && "$JUPYTER_PY" notebooks/test/wrong_answers.py --out "$BUILD/wrong-answers")
}

# The browser test needs Debian's chromium and playwright-core (pinned in notebooks/test/browser/package.json).
setup_browser() {
  local dir="$ROOT/notebooks/test/browser"
  command -v chromium >/dev/null 2>&1 || apt_install chromium chromium
  if [ ! -f "$dir/node_modules/.stamp" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.stamp" ]; then
    command -v npm >/dev/null 2>&1 || die "the browser test needs npm: apt-get install -y npm"
    say "set-up: npm ci (playwright-core, browser test)"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >"$BUILD/npm-browser.log" 2>&1 \
      || die "npm ci failed in $dir (see $BUILD/npm-browser.log)"
    touch "$dir/node_modules/.stamp"
  fi
}

# stale_lessons FILE...: those whose executed copies are missing or older than the lesson or the toolkit's jar.
stale_lessons() {
  local f stem kind
  for f in "$@"; do
    stem=$(basename "$f" .ipynb)
    for kind in instructor student; do
      if [ ! -f "$RUN_DIR/$kind/$stem.ipynb" ] || [ "$f" -nt "$RUN_DIR/$kind/$stem.ipynb" ] \
         || [ "$TOOLKIT_JAR" -nt "$RUN_DIR/$kind/$stem.ipynb" ]; then
        printf '%s\n' "$f"; break
      fi
    done
  done
}

# browser LIVE FILE...: these lessons' executed copies rendered (executed first where missing or stale), and the
# lesson LIVE run live ("" for none).
browser() {
  local live=$1 stale stems=() f
  shift
  setup_browser
  mapfile -t stale < <(stale_lessons "$@")
  if [ ${#stale[@]} -gt 0 ]; then
    say "== executing first what the browser renders: ${stale[*]##*/}"
    lessons_run "${stale[@]}"
  fi
  for f in "$@"; do stems+=("$(basename "$f" .ipynb)"); done
  say "== browser test (chromium): ${#stems[@]} executed lesson(s) rendered${live:+, $live run live}"
  (cd "$ROOT" && node notebooks/test/browser/lessons.mjs "$BUILD/browser" --rendered "$RUN_DIR" ${live:+--live "$live"} "${stems[@]}")
}

# The kernel and notebook tests use this checkout's kernelspec (build/jupyter), whichever checkout installed the
# user's last.
export JUPYTER_PATH="$BUILD/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"

# timed NAME COMMAND...: runs it and keeps its seconds for the summary.
TIMES=()
timed() {
  local name=$1 start=$EPOCHREALTIME
  shift
  "$@"
  TIMES+=("$(awk -v n="$name" -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%-8s %7.1f s", n, b - a }')")
}

# Nothing left in the shared folders: the names the tests leave in the temp folder and /dev/shm. Allowed: each
# user's private folder (0700; it must end empty) and the JVM's own perf data.
SHARED=("${TMPDIR:-/tmp}" /dev/shm)
shared_entries() {
  local d
  for d in "${SHARED[@]}"; do [ -d "$d" ] && find "$d" -mindepth 1 -maxdepth 1 -printf '%p\n'; done | sort
}
shared_left() {
  local me d left
  me=$(id -un)
  # The suite kills JVMs on purpose; what a killed one leaves, the same user's next start removes: that start is
  # part of the check (after 2 s: a library a JVM has just unpacked is left until it is surely loaded).
  sleep 2
  toolkit --version >/dev/null 2>&1 || true
  left=$(comm -13 <(printf '%s\n' "$SHARED_BEFORE") <(shared_entries) \
         | grep -vE "/hsperfdata_[^/]+$|^(${SHARED[0]}|/dev/shm)/mpi2nccl-$me$" || true)
  for d in "${SHARED[0]}/mpi2nccl-$me" "/dev/shm/mpi2nccl-$me"; do
    if [ -d "$d" ] && [ -n "$(ls -A "$d")" ]; then left+="${left:+$'\n'}$d: $(ls -A "$d" | head -5 | paste -sd' ' -)"; fi
  done
  printf '%s' "$left"
}
SHARED_BEFORE=$(shared_entries)

for part in "${PARTS[@]}"; do
  case "$part" in
    env) timed env test_env ;;
    unit) timed unit test_unit ;;
    kernel) timed kernel test_kernel ;;
    lessons) timed lessons test_lessons ;;
    answers) timed answers test_answers ;;
    browser) timed browser browser 01 "$ROOT"/notebooks/*.ipynb ;;
    lab) setup_browser; timed lab env MPI2NCCL_LESSON_LENGTH=$LENGTH bash "$ROOT/notebooks/test/lab/lab_test.sh" ;;
  esac
done
if [ ${#LESSONS[@]} -gt 0 ]; then
  say "== lesson(s) ${LESSONS[*]##*/} ($LENGTH length)"
  timed lessons lessons_run "${LESSONS[@]}"
  timed browser browser "" "${LESSONS[@]}"
fi
left=$(shared_left)
[ -z "$left" ] || die "the tests left these in shared folders (a job, kernel or test removes what it made when it ends):
$left"
say "== every part passed ($LENGTH lessons), nothing left in ${SHARED[*]}; seconds per part:"
printf '   %s\n' "${TIMES[@]}"
