#!/usr/bin/env bash
# Did a change move the one-GPU training step? bench-gpu's CNN step (lesson CNN 32/64, SGD with momentum) timed
# with the bundle as it is (B) and with another build's toolkit jar or another setting (A), in alternating rounds on
# the same GPU.
# Usage, from the repository root with the bundle unpacked:
#   BUNDLE=/tmp/bundle OUT=/tmp/out JAR_A=path/to/other-toolkit.jar bash scripts/gpu/train-step-ab.sh
#   BUNDLE=/tmp/bundle OUT=/tmp/out ENV_A="MPI2NCCL_FUSED_BLOCKS=0" bash scripts/gpu/train-step-ab.sh
# ROUNDS (default 3) rounds of A then B; BATCHES (default "128 2048") per round. Prints one line per run and the
# median step time of each side per batch ($OUT/train-step-ab.txt).
set -uo pipefail
source "$(dirname "$0")/cuda-common.sh"
header "train-step-ab"
ROUNDS=${ROUNDS:-3}
BATCHES=${BATCHES:-128 2048}
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
env_a=()
if [ -n "${ENV_A:-}" ]; then
  # A: the same bundle with these variables set
  read -r -a env_a <<< "$ENV_A"
  bundle_a=$BUNDLE
  note "A: the bundle with $ENV_A; B: the bundle as it is"
else
  [ -f "${JAR_A:-}" ] || { note "set JAR_A=path/to/toolkit.jar (the build to compare against) or ENV_A=\"NAME=VALUE ...\""; exit 2; }
  jar_b=$(ls "$BUNDLE"/lib/mpi2nccl-toolkit*.jar 2>/dev/null | head -1)
  [ -f "$jar_b" ] || { note "no toolkit jar in $BUNDLE/lib"; exit 2; }
  # A: the same bundle, its toolkit jar swapped, started through the main class that jar has (MAIN_A, else looked up)
  cp -a "$BUNDLE" "$copy/bundle-a" && cp "$JAR_A" "$copy/bundle-a/lib/$(basename "$jar_b")"
  main_a=${MAIN_A:-$(python3 -c 'import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
print("org.mpi2nccl.cli.Main" if "org/mpi2nccl/cli/Main.class" in names else "org.mpi2nccl.Cli")' "$JAR_A")}
  sed -i "s/org\.mpi2nccl\.cli\.Main/$main_a/" "$copy/bundle-a/bin/mpi2nccl"
  bundle_a=$copy/bundle-a
  note "A: $JAR_A ($main_a); B: $jar_b"
fi
table="$OUT/train-step-ab.tsv"
printf 'round\tside\tbatch\tms\n' > "$table"
for r in $(seq 1 "$ROUNDS"); do
  for side in A B; do
    b=$BUNDLE; vars=(); [ $side = A ] && { b=$bundle_a; vars=(env "${env_a[@]}"); }
    for batch in $BATCHES; do
      name="train-$side-$batch-$r"
      run "$name" 120 "${vars[@]}" "$b/bin/mpi2nccl" bench-gpu --only train --batch "$batch" --json "$OUT/$name.json" || continue
      # the first train figure is the whole step; its "ms" is the median time of one step
      ms=$(grep -oE '"ms": *[0-9.eE+-]+' "$OUT/$name.json" | head -1 | grep -oE '[0-9.eE+-]+$')
      printf '%s\t%s\t%s\t%s\n' "$r" "$side" "$batch" "$ms" >> "$table"
    done
  done
done
note "== median of the rounds (ms per step)"
for batch in $BATCHES; do
  for side in A B; do
    med=$(awk -F'\t' -v s=$side -v b=$batch '$2==s && $3==b {print $4}' "$table" | sort -g |
          awk '{v[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}')
    note "   batch $batch  $side  $med"
  done
done
