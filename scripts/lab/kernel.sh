#!/bin/sh
# The lab's mpi2nccl kernel (installed as bin/mpi2nccl-kernel; the kernelspec runs it with the connection file):
# Java's temporary files, such as the native libraries a library unpacks, go to the student's private folder
# (0700) instead of the shared /tmp. Java, the toolkit and MPJ Express are where ./build.sh lab install put them.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
tmp="${TMPDIR:-/tmp}/mpi2nccl-$(id -un)"
mkdir -p -m 700 "$tmp"
if [ ! -O "$tmp" ] || [ -L "$tmp" ] || [ "$(stat -c %a "$tmp")" != 700 ]; then
  echo "mpi2nccl kernel: $tmp is not a private folder of yours (0700): remove it, or set TMPDIR to a folder of your own" >&2
  exit 1
fi
export MPJ_HOME="$here/mpj-home"
exec "$(cat "$here/java-path")" --enable-native-access=ALL-UNNAMED -Djava.io.tmpdir="$tmp" -cp "$here/lib/*" \
  org.mpi2nccl.kernel.KernelMain "$1"
