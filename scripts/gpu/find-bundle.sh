# Sourced by the GPU scripts that take the bundle wherever it is: find_bundle prints the bundle's folder ($BUNDLE,
# else ./bundle, else /tmp/bundle, else build/mpi2nccl-bundle.tar.xz unpacked to /tmp) or fails.
find_bundle() {
  local b t
  for b in "${BUNDLE:-}" bundle /tmp/bundle; do
    [ -n "$b" ] && [ -x "$b/bin/mpi2nccl" ] && { (cd "$b" && pwd); return 0; }
  done
  for t in build/mpi2nccl-bundle.tar.xz mpi2nccl-bundle.tar.xz; do
    if [ -s "$t" ] && tar xJf "$t" -C /tmp && [ -x /tmp/bundle/bin/mpi2nccl ]; then echo /tmp/bundle; return 0; fi
  done
  return 1
}
