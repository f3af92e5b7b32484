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
# Charts are drawn with the bundle's own font (a GPU node may have no fonts at all). The configuration names the
# folder by its absolute path (older fontconfig has no relative <dir>), written once per bundle location.
if [ -z "${FONTCONFIG_FILE:-}" ] && [ -f "$BUNDLE_HOME/fonts/fonts.conf" ]; then
  _fc="${TMPDIR:-/tmp}/mpi2nccl-fonts-$(id -u)-$(printf '%s' "$BUNDLE_HOME" | cksum | cut -d' ' -f1).conf"
  [ -s "$_fc" ] || sed -e "s|<dir prefix=\"relative\">.</dir>|<dir>$BUNDLE_HOME/fonts</dir>|" \
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
}
_mpi2nccl_ld=""
while read -r _d; do
  case ":${LD_LIBRARY_PATH:-}:$_mpi2nccl_ld:" in *":$_d:"*) ;; *) _mpi2nccl_ld="$_mpi2nccl_ld:$_d";; esac
done < <(_mpi2nccl_libdirs)
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:-}${_mpi2nccl_ld}"
export LD_LIBRARY_PATH="${LD_LIBRARY_PATH#:}"
MPI2NCCL_CP="$BUNDLE_HOME/lib/*"
MPI2NCCL_JAVA_OPTS="--enable-native-access=ALL-UNNAMED"
