#!/usr/bin/env bash
# Packs this machine's Debian Slurm and munge (installed by ./build.sh lab install) for a GPU machine that has
# neither: binaries, plugins and the libraries they link that a minimal machine may lack (glibc, systemd's, zstd,
# xz, zlib and gcrypt are on every Debian or Ubuntu machine and are not taken), and this machine's munge
# key is NOT taken (slurm-gres.sh makes a fresh one there). Writes build/peer/slurm.tar.xz (an ignored folder).
#   bash scripts/gpu/slurm-peer.sh       then carry build/peer/slurm.tar.xz with the bundle
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
out="$ROOT/build/peer/slurm"
rm -rf "$out" && mkdir -p "$out/bin" "$out/lib" "$out/plugins"
for b in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/slurmstepd /usr/bin/srun /usr/bin/sinfo /usr/bin/squeue \
         /usr/bin/scontrol /usr/bin/scancel /usr/sbin/munged /usr/bin/munge /usr/bin/unmunge; do
  cp "$b" "$out/bin/"
done
cp -a /usr/lib/x86_64-linux-gnu/slurm-wlm/. "$out/plugins/"
# What a one-node lab does not load (REST API, PMI for MPI libraries, Lua hooks, profiling, accounting databases):
# left out to keep the carried file small.
(cd "$out/plugins" && rm -f openapi_* mpi_pmi* libslurm_pmi.so *lua* burst_buffer_* jobcomp_elasticsearch* \
  acct_gather_profile_hdf5* acct_gather_profile_influxdb* auth_jwt* serializer_* accounting_storage_slurmdbd* data_parser_*)
for b in "$out"/bin/* "$out"/plugins/*.so; do
  ldd "$b" 2>/dev/null | awk '$3 ~ /^\// {print $3}'
done | sort -u | grep -v -E '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*|libsystemd|libzstd|libgcrypt|libgpg-error|liblzma|libz)\.so' | while read -r lib; do
  case "$lib" in */slurm-wlm/*) ;; *) cp -L "$lib" "$out/lib/" ;; esac
done
echo "slurm-wlm $(dpkg-query -W -f '${Version}' slurmd), munge $(dpkg-query -W -f '${Version}' munge)" > "$out/VERSION"
tar -C "$ROOT/build/peer" -cJf "$ROOT/build/peer/slurm.tar.xz" slurm
echo "build/peer/slurm.tar.xz: $(du -h "$ROOT/build/peer/slurm.tar.xz" | cut -f1) ($(cat "$out/VERSION"))"
