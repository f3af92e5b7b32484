#!/usr/bin/env bash
# ./build.sh notebook: Jupyter Notebook on localhost with notebooks/ open (run after scripts/setup.sh). Jupyter
# prints the URL with its token. NOTEBOOK_PORT chooses the port (default 8888).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

port=${NOTEBOOK_PORT:-8888}
root_flag=()
[ "$(id -u)" = 0 ] && root_flag=(--allow-root)
say "Starting Jupyter Notebook on http://127.0.0.1:$port (kernel \"Java (mpi2nccl)\"); Ctrl-C stops it."
say "Open the URL with the token that Jupyter prints below."
cd "$ROOT/notebooks"
exec jupyter notebook --no-browser --ip=127.0.0.1 --port="$port" --notebook-dir="$ROOT/notebooks" "${root_flag[@]}"
