#!/usr/bin/env bash
# mpi2nccl: one entry point for set-up, the main job, the tests and the GPU bundle.
#
#   ./build.sh run       the main job: the data-parallel speedup experiment, report in build/report/
#   ./build.sh test      every test: mvn test, the Jupyter kernel, the notebooks, the browser
#   ./build.sh bundle    build/mpi2nccl-bundle.tar.xz: runs on a GPU machine with CUDA but no Java
#   ./build.sh notebook  the student lessons in ~/mpi2nccl-lessons (NOTEBOOK_DIR), opened in Jupyter Notebook
#   ./build.sh lessons   the student (answers blanked) and instructor versions of the lessons, in build/lessons/
#   ./build.sh setup     only the set-up: packages, Maven build, MPJ_HOME, GPU kernels, Jupyter kernel
#   ./build.sh cli ARGS  the toolkit's command line (./build.sh cli --help)
#
# Each command does the set-up first. It is idempotent: each step checks a stamp and is skipped
# (quietly) when nothing changed. The steps are in scripts/ (setup.sh, test.sh, bundle.sh, notebook.sh, lib.sh).
set -euo pipefail
S="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/scripts"
source "$S/lib.sh"

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  setup)    bash "$S/setup.sh" ;;
  run)      bash "$S/setup.sh"; MPI2NCCL_REPORT_DIR="${MPI2NCCL_REPORT_DIR:-$BUILD/report}" toolkit run "$@" ;;
  test)     bash "$S/setup.sh"; bash "$S/test.sh" "$@" ;;
  cli)      bash "$S/setup.sh"; toolkit "$@" ;;
  bundle)   bash "$S/setup.sh"; bash "$S/bundle.sh" "$@" ;;
  notebook) bash "$S/setup.sh"; exec bash "$S/notebook.sh" "$@" ;;
  lessons)  bash "$S/setup.sh"; "$JUPYTER_PY" "$S/lessons/versions.py" --student "$BUILD/lessons/student" \
              --instructor "$BUILD/lessons/instructor" "$ROOT"/notebooks/*.ipynb ;;
  ""|-h|--help|help)
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" ;;
  *) die "unknown command '$cmd'. Use one of: run, test, bundle, notebook, lessons, setup, cli." ;;
esac
