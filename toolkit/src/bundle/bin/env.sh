# Sourced by the bundle's commands: the bundled Java, MPJ_HOME, and the CUDA/NCCL libraries of this machine.
# A GPU node has CUDA but maybe no system-wide NCCL or cudart: look where they are usually found and put
# every folder that holds one of them on LD_LIBRARY_PATH (the JNI libraries of JCuda and JavaCPP dlopen them).
BUNDLE_HOME=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export JAVA_HOME="$BUNDLE_HOME/runtime"
export PATH="$JAVA_HOME/bin:$PATH"
export MPJ_HOME="$BUNDLE_HOME/mpj-home"
# NVLink multicast (NVLS) can take a shared host's GPUs out of service: off unless the caller turns it on.
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
export TORCH_SYMM_MEM_DISABLE_MULTICAST="${TORCH_SYMM_MEM_DISABLE_MULTICAST:-1}"
export NVSHMEM_DISABLE_NVLS="${NVSHMEM_DISABLE_NVLS:-1}"
# Charts are drawn with the bundle's own font (a GPU node may have no fonts at all), in runtime/lib/fonts. The
# configuration names that folder by its absolute path (older fontconfig has no relative <dir>), written once per
# folder. (A node without libfontconfig: Java reads runtime/lib/fontconfig.properties instead.)
if [ -z "${FONTCONFIG_FILE:-}" ] && [ -f "$BUNDLE_HOME/fonts/fonts.conf" ]; then
  _fc="${TMPDIR:-/tmp}/mpi2nccl-fonts-$(id -u)-$(printf '%s' "$BUNDLE_HOME/runtime/lib/fonts" | cksum | cut -d' ' -f1).conf"
  [ -s "$_fc" ] || sed -e "s|<dir prefix=\"relative\">.</dir>|<dir>$BUNDLE_HOME/runtime/lib/fonts</dir>|" \
      -e "s|<cachedir prefix=\"xdg\">mpi2nccl-fontconfig</cachedir>|<cachedir>${TMPDIR:-/tmp}/mpi2nccl-fontconfig-$(id -u)</cachedir>|" \
      "$BUNDLE_HOME/fonts/fonts.conf" > "$_fc"
  export FONTCONFIG_FILE="$_fc"
fi

_mpi2nccl_libdirs() {
  local d
  for d in "${NCCL_HOME:+$NCCL_HOME/lib}" "${NCCL_HOME:+$NCCL_HOME/lib64}" \
           "${CUDA_HOME:+$CUDA_HOME/lib64}" "${CUDA_HOME:+$CUDA_HOME/lib}" \
           /usr/local/cuda/lib64 /usr/lib/x86_64-linux-gnu; do
    [ -n "$d" ] && [ -d "$d" ] && echo "$d"
  done
  # pip wheels (nvidia-nccl-cu13, nvidia-cuda-runtime, ...) in any Python's site-packages
  for d in /opt/*/.venv/lib/python3*/site-packages/nvidia/*/lib /usr/local/lib/python3*/dist-packages/nvidia/*/lib \
           /usr/lib/python3/dist-packages/nvidia/*/lib "$HOME"/.local/lib/python3*/site-packages/nvidia/*/lib; do
    [ -d "$d" ] && echo "$d"
  done
  return 0   # a last pattern that matched nothing is not a failure (the commands run under set -euo pipefail)
}
# The version of a libnccl.so.2: from the name it links to (libnccl.so.2.28.3), the pip wheel's dist-info next to
# it (nvidia_nccl_cu13-2.28.9.dist-info), or the "NCCL version 2.28.9" string inside it. Empty when unknown.
_mpi2nccl_nccl_version() {
  local f=$1 real v sp
  real=$(readlink -f "$f")
  v=$(basename "$real" | sed -nE 's/^libnccl\.so\.([0-9]+\.[0-9]+\.[0-9]+)$/\1/p')
  if [ -z "$v" ]; then
    sp=$(dirname "$(dirname "$(dirname "$(dirname "$real")")")")     # site-packages of .../nvidia/nccl/lib/libnccl.so.2
    v=$(ls -d "$sp"/nvidia_nccl_cu*-*.dist-info 2>/dev/null | sed -nE 's/.*-([0-9]+\.[0-9]+\.[0-9]+)\.dist-info$/\1/p' | sort -V | tail -1)
  fi
  [ -z "$v" ] && v=$(grep -a -o -m1 -E 'NCCL version [0-9]+\.[0-9]+\.[0-9]+' "$real" 2>/dev/null | head -1 | sed 's/NCCL version //')
  echo "$v"
}
# Every folder holding libnccl.so.2 (LD_LIBRARY_PATH's and ours), newest NCCL first: the newest goes to the front of
# LD_LIBRARY_PATH (NCCL_HOME, when set, is the caller's explicit choice and stays first). The toolkit itself
# makes the same choice (org.mpi2nccl.cuda.LibrarySearch); `mpi2nccl doctor-gpu` says which one and what else it saw.
_mpi2nccl_nccl_first() {
  local d v
  [ -n "${NCCL_HOME:-}" ] && return 0
  { tr ':' '\n' <<< "${LD_LIBRARY_PATH:-}"; _mpi2nccl_libdirs; } | while read -r d; do
    [ -n "$d" ] && [ -e "$d/libnccl.so.2" ] || continue
    v=$(_mpi2nccl_nccl_version "$d/libnccl.so.2")
    echo "${v:-0.0.0} $d"
  done | sort -k1,1Vr -s | head -1 | cut -d' ' -f2-
}
_mpi2nccl_ld=""
_mpi2nccl_nccl_dir=$(_mpi2nccl_nccl_first || true)
while read -r _d; do
  case ":${LD_LIBRARY_PATH:-}:$_mpi2nccl_ld:$_mpi2nccl_nccl_dir:" in *":$_d:"*) ;; *) _mpi2nccl_ld="$_mpi2nccl_ld:$_d";; esac
done < <(_mpi2nccl_libdirs)
if [ -n "$_mpi2nccl_nccl_dir" ]; then
  # the newest NCCL's folder first, then the caller's folders (without it), then the ones found here
  _mpi2nccl_rest=$(tr ':' '\n' <<< "${LD_LIBRARY_PATH:-}" | grep -vxF "$_mpi2nccl_nccl_dir" | grep -v '^$' | paste -sd: - || true)
  export LD_LIBRARY_PATH="$_mpi2nccl_nccl_dir${_mpi2nccl_rest:+:$_mpi2nccl_rest}${_mpi2nccl_ld}"
else
  export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}${_mpi2nccl_ld}"
fi
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH#:}"
MPI2NCCL_CP="$BUNDLE_HOME/lib/*"
MPI2NCCL_JAVA_OPTS="--enable-native-access=ALL-UNNAMED"
