#!/usr/bin/env bash
# mpi2nccl: one entry point for set-up, the main job, the tests and the GPU bundle.
#
#   ./build.sh run       the main job: the data-parallel speedup experiment, report in build/report/
#   ./build.sh test      every test: mvn test, the Jupyter kernel, the lessons, the browser (parts by name: --help)
#   ./build.sh bundle    build/mpi2nccl-bundle.tar.xz: runs on a GPU machine with CUDA but no Java
#   ./build.sh notebook  the student lessons in ~/mpi2nccl-lessons (NOTEBOOK_DIR), opened in Jupyter Notebook
#   ./build.sh lessons   the student (answers blanked) and instructor versions of the lessons, in build/lessons/
#   ./build.sh lab CMD   a lab server for a class on JupyterHub, as root (install, add-student, start, stop, status)
#   ./build.sh setup     only the set-up: packages, Maven build, MPJ_HOME, GPU kernels, Jupyter kernel
#   ./build.sh cli ARGS  the toolkit's command line (./build.sh cli --help)
#
# Each command does the set-up first. It is idempotent: each step checks a stamp and is skipped (quietly) when
# nothing changed. The steps are in scripts/ (setup.sh, test.sh, bundle.sh, notebook.sh, lab.sh, lib.sh).
# ./build.sh COMMAND --help says what COMMAND does and takes, and runs nothing.
set -euo pipefail
S="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/scripts"
source "$S/lib.sh"

# usage: the header above.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

# toolkit_help ARGS: the toolkit's own help for ARGS when it is built, else where to find it.
toolkit_help() {
  if [ -f "$TOOLKIT_JAR" ]; then toolkit "$@" --help
  else say "(the toolkit is not built yet: ./build.sh setup builds it; then ./build.sh cli $* --help lists the options)"; fi
}

# command_help CMD: what CMD does, without running it or the set-up.
command_help() {
  case "$1" in
    run) say "usage: ./build.sh run [OPTIONS]
The set-up, then the data-parallel speedup experiment (CPU ranks here, GPUs where present): the table printed,
CSV, HTML and PNG plots in build/report/ (MPI2NCCL_REPORT_DIR chooses another folder). OPTIONS are those of
the toolkit's run command:"
         toolkit_help run ;;
    test) bash "$S/test.sh" --help ;;
    cli) say "usage: ./build.sh cli COMMAND [ARGS]: the toolkit's command line, after the set-up."; toolkit_help ;;
    bundle) say "usage: ./build.sh bundle
The set-up, then build/mpi2nccl-bundle.tar.xz: a jlinked Java runtime (from the Temurin 25 JDK, or BUNDLE_JDK),
the toolkit and its jars, the test classes, MPJ_HOME and bin/, for a GPU machine that has CUDA but no Java." ;;
    notebook) say "usage: ./build.sh notebook
The set-up, then the student versions of the lessons copied into NOTEBOOK_DIR (default ~/mpi2nccl-lessons; a
lesson already there is kept with your edits) and Jupyter Notebook opened on http://127.0.0.1:NOTEBOOK_PORT
(default 8888). Ctrl-C stops it." ;;
    lessons) say "usage: ./build.sh lessons
The set-up, then the student versions (answers blanked) in build/lessons/student and the instructor versions in
build/lessons/instructor, from notebooks/*.ipynb." ;;
    lab) bash "$S/lab.sh" --help ;;
    setup) say "usage: ./build.sh setup
Only the set-up: Debian packages (as root, else it says what to install), Debian's mpj.jar in the local Maven
repository, build/mpj-home, the CUDA kernels (when nvcc exists), the Maven build and the Jupyter kernelspec.
Each step is skipped when nothing it depends on changed." ;;
  esac
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
# --help anywhere in a command's options (for cli only as its first word: the rest belongs to the toolkit)
if [ "$cmd" = cli ]; then
  case "${1:-}" in -h|--help) command_help cli; exit 0 ;; esac
elif [[ "$cmd" =~ ^(run|test|bundle|notebook|lessons|setup|lab)$ ]]; then
  for a in "$@"; do case "$a" in -h|--help) command_help "$cmd"; exit 0 ;; esac; done
fi
case "$cmd" in
  setup)    bash "$S/setup.sh" ;;
  run)      bash "$S/setup.sh"; MPI2NCCL_REPORT_DIR="${MPI2NCCL_REPORT_DIR:-$BUILD/report}" toolkit run "$@" ;;
  test)     bash "$S/test.sh" --check-args "$@"; bash "$S/setup.sh"; bash "$S/test.sh" "$@" ;;
  cli)      bash "$S/setup.sh"; toolkit "$@" ;;
  bundle)   bash "$S/setup.sh"; bash "$S/bundle.sh" "$@" ;;
  notebook) bash "$S/setup.sh"; exec bash "$S/notebook.sh" "$@" ;;
  lab)      case "${1:-}" in install) bash "$S/setup.sh" ;; esac; bash "$S/lab.sh" "$@" ;;
  lessons)  bash "$S/setup.sh"; "$JUPYTER_PY" "$S/lessons/versions.py" --student "$BUILD/lessons/student" \
              --instructor "$BUILD/lessons/instructor" "$ROOT"/notebooks/*.ipynb ;;
  ""|-h|--help|help) usage ;;
  *) die "unknown command '$cmd'. Use one of: run, test, bundle, notebook, lessons, lab, setup, cli (./build.sh --help)." ;;
esac
