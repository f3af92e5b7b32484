#!/usr/bin/env bash
# ./build.sh notebook: the student versions of the lessons (answers blanked, scripts/lessons/versions.py) in a
# workspace folder, opened in Jupyter Notebook on localhost (run after scripts/setup.sh). Jupyter prints the URL
# with its token.
#   NOTEBOOK_DIR   the workspace (default ~/mpi2nccl-lessons). A lesson already there is kept as it is, with the
#                  student's edits: only missing lessons are copied. Delete one to get it fresh.
#   NOTEBOOK_PORT  the port (default 8888).
# The lessons' metadata names the kernel "mpi2nccl-java". lib.sh puts this checkout's build/jupyter first on
# JUPYTER_PATH, and the server started here inherits it, so there "mpi2nccl-java" is this checkout's kernel. The
# notebooks stay as they are: opened from another checkout's `./build.sh notebook`, they run that checkout's kernel.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

port=${NOTEBOOK_PORT:-8888}
workspace=${NOTEBOOK_DIR:-$HOME/mpi2nccl-lessons}

"$JUPYTER_PY" "$ROOT/scripts/lessons/versions.py" --student "$BUILD/lessons/student" \
  --instructor "$BUILD/lessons/instructor" "$ROOT"/notebooks/*.ipynb >/dev/null
bash "$ROOT/scripts/lab/workspace.sh" "$BUILD/lessons/student" "$workspace"
say "(NOTEBOOK_DIR chooses another folder.)"
[ "${MPI2NCCL_NOTEBOOK_NO_SERVER:-0}" = 1 ] && exit 0   # the workspace only (scripts/test.sh checks it this way)

root_flag=()
[ "$(id -u)" = 0 ] && root_flag=(--allow-root)
say "Starting Jupyter Notebook on http://127.0.0.1:$port (kernel \"$KERNEL_DISPLAY_NAME\"); Ctrl-C stops it."
say "Open the URL with the token that Jupyter prints below."
cd "$workspace"
exec jupyter notebook --no-browser --ip=127.0.0.1 --port="$port" --notebook-dir="$workspace" "${root_flag[@]}"
