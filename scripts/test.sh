#!/usr/bin/env bash
# ./build.sh test: every test (run after scripts/setup.sh): the bundle's env.sh, mvn test, the kernel over the
# Jupyter protocol, every notebook headless, lesson 04 outside the repository, and every lesson in a real browser.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The bundle's env.sh, sourced the way its commands source it (set -euo pipefail): with no LD_LIBRARY_PATH, and
# with a folder holding a libnccl.so.2, which must come first. A failing line in it ends every bundle command
# silently, so this runs first.
test_bundle_env() {
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

# Kernel tests over the Jupyter protocol (jupyter_client): displays, %%mpj state, interrupt, crash, shutdown; the
# IJava magics (test_magics.py: %maven from file:// repositories, %%loadFromPOM, %%writefile, %load, %%html); the
# faults of test_faults.py (a rank skipping a collective, exit through a variable), each timed and checked for leftovers.
test_kernel() {
  say "== kernel tests over the Jupyter protocol"
  (cd "$ROOT" && "$JUPYTER_PY" -m unittest discover -s toolkit/src/test/jupyter -p 'test_*.py' -v)
}

# Every notebook, executed headless by Debian's nbclient with this kernel; exercise checks get the reference
# answers from notebooks/test/answers/. Executed copies go to build/notebooks/.
test_notebooks() {
  say "== notebooks (nbclient, headless)"
  (cd "$ROOT" && "$JUPYTER_PY" notebooks/test/run_notebooks.py --out "$BUILD/notebooks" notebooks/*.ipynb)
}

# The same lessons through the toolkit's own runner (mpi2nccl execute: no Jupyter, as on GPU nodes), with the same
# rules; it must also agree with nbclient on every check cell's verdicts. Executed copies go to build/notebooks-executed/.
test_notebooks_execute() {
  say "== notebooks (mpi2nccl execute, headless, no Jupyter)"
  (cd "$ROOT" && "$JUPYTER_PY" notebooks/test/run_executed.py --out "$BUILD/notebooks-executed" \
      --compare "$BUILD/notebooks" notebooks/*.ipynb)
}

# Lessons as students open them: ./build.sh notebook's workspace, and lesson 04 copied to an empty folder outside
# the repository, which must show the recorded GPU results from the toolkit's copy (about 30 s).
test_outside_repo() {
  say "== lessons outside the repository"
  (cd "$ROOT" && "$JUPYTER_PY" notebooks/test/outside_repo.py)
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

# A real browser: headless chromium opens the notebook server and runs every lesson, one after the other (about
# 2.5 minutes on 2 cores). It fails on an error output, an output wider than the notebook column, a chart folded
# into a scroll box, or a lesson with no chart, and saves a full-page screenshot of each to build/browser/.
test_browser() {
  setup_browser
  say "== browser test (chromium, every lesson)"
  (cd "$ROOT" && node notebooks/test/browser/lessons.mjs "$BUILD/browser")
}

# The kernel and notebook tests use this checkout's kernelspec (build/jupyter), whichever checkout installed the
# user's last.
export JUPYTER_PATH="$BUILD/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"

test_bundle_env
say "== unit and integration tests (mvn test)"
(cd "$ROOT" && mvn -B test)
test_kernel
test_notebooks
test_notebooks_execute
test_outside_repo
test_browser
