#!/usr/bin/env bash
# workspace.sh LESSONS WORKSPACE: a student's workspace, private to them (0700, lessons 0600), with every lesson
# of LESSONS (student versions) it does not hold yet. A lesson already there is kept as it is, with the student's
# edits: delete one to get it fresh. Used by ./build.sh notebook, and by the lab's hub (installed as
# bin/mpi2nccl-workspace) before each student's server starts. On a shared server other users must not read or
# copy another student's answers.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: workspace.sh LESSONS WORKSPACE" >&2; exit 2; }
lessons=$1 workspace=$2
[ -d "$lessons" ] || { echo "workspace.sh: no lessons folder $lessons" >&2; exit 1; }
mkdir -p -m 700 "$workspace"
if [ -O "$workspace" ] && [ "$(stat -c %a "$workspace")" != 700 ]; then
  chmod 700 "$workspace" && echo "made $workspace private to you (it was open to other users)"
fi
[ -O "$workspace" ] || { echo "workspace.sh: $workspace belongs to someone else" >&2; exit 1; }
copied=() kept=()
for nb in "$lessons"/*.ipynb; do
  name=$(basename "$nb")
  if [ -e "$workspace/$name" ]; then
    kept+=("$name")
  else
    install -m 600 "$nb" "$workspace/$name"
    copied+=("$name")
  fi
done
# The lessons' pictures (figures/, beside them) are no student's work: always the current ones.
if [ -d "$lessons/figures" ]; then
  mkdir -p -m 700 "$workspace/figures"
  install -m 600 "$lessons"/figures/* "$workspace/figures/"
fi
echo "Lessons in $workspace (student versions)."
[ ${#copied[@]} -eq 0 ] || echo "  copied: ${copied[*]}"
[ ${#kept[@]} -eq 0 ] || echo "  kept as they are (your edits; delete one to get it fresh): ${kept[*]}"
