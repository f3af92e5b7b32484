#!/usr/bin/env bash
# Packs this machine's Debian Slurm and munge (installed by ./build.sh lab install) for a GPU machine that has
# neither: binaries, plugins and the libraries they link that a minimal machine may lack, and this machine's munge
# key is NOT taken (slurm-gres.sh makes a fresh one there). Writes build/peer/slurm.tar.gz (an ignored folder).
#   bash scripts/gpu/slurm-peer.sh       then carry build/peer/slurm.tar.gz with the bundle
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
out="$ROOT/build/peer/slurm"
rm -rf "$out" && mkdir -p "$out/bin" "$out/lib" "$out/plugins"
for b in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/slurmstepd /usr/bin/srun /usr/bin/sinfo /usr/bin/squeue \
         /usr/bin/scontrol /usr/bin/scancel /usr/sbin/munged /usr/bin/munge /usr/bin/unmunge; do
  cp "$b" "$out/bin/"
done
cp -a /usr/lib/x86_64-linux-gnu/slurm-wlm/. "$out/plugins/"
for b in "$out"/bin/* "$out"/plugins/*.so; do
  ldd "$b" 2>/dev/null | awk '$3 ~ /^\// {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' | while read -r lib; do
  case "$lib" in */slurm-wlm/*) ;; *) cp -L "$lib" "$out/lib/" ;; esac
done
echo "slurm-wlm $(dpkg-query -W -f '${Version}' slurmd), munge $(dpkg-query -W -f '${Version}' munge)" > "$out/VERSION"
tar -C "$ROOT/build/peer" -czf "$ROOT/build/peer/slurm.tar.gz" slurm
echo "build/peer/slurm.tar.gz: $(du -h "$ROOT/build/peer/slurm.tar.gz" | cut -f1) ($(cat "$out/VERSION"))"
