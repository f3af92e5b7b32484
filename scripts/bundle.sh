#!/usr/bin/env bash
# ./build.sh bundle: a tarball for GPU machines that have CUDA but no Java (run after scripts/setup.sh): a jlinked
# runtime, the toolkit and its jars, the test classes with JUnit's console launcher, MPJ_HOME and bin/. Jars are
# stored uncompressed so that xz compresses the whole tarball at once: fastutil's 78 MB of classes then take 3 MB
# instead of 23.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# jdk.jshell (with javac) is for the kernel's rank engines, one GPU per rank: about 9 MB more in the tarball.
# jdk.jfr lets scripts/gpu/profile-step.sh record where a GPU rank spends its host time (Flight Recorder).
BUNDLE_MODULES=java.base,java.desktop,java.logging,java.management,java.naming,java.sql,jdk.management,jdk.unsupported,jdk.jshell,jdk.jfr
JUNIT_CONSOLE=org.junit.platform:junit-platform-console-standalone:$(pom_property junit-platform.version)

bundle_jdk() {
  local j
  for j in "${BUNDLE_JDK:-}" /usr/lib/jvm/temurin-25-jdk-amd64 "${JAVA_HOME:-}"; do
    [ -n "$j" ] && [ -x "$j/bin/jlink" ] && { echo "$j"; return 0; }
  done
  die "no JDK with jlink found for the bundle's runtime: set BUNDLE_JDK=/path/to/jdk (Temurin 25 links without jmods)"
}

bundle_runtime() {
  local rt="$BUILD/bundle-runtime" jdk
  [ -x "$rt/bin/java" ] && [ "$(cat "$rt/.modules" 2>/dev/null)" = "$BUNDLE_MODULES" ] && return 0
  jdk=$(bundle_jdk)
  say "bundle: jlink $BUNDLE_MODULES from $jdk"
  rm -rf "$rt"
  "$jdk/bin/jlink" --add-modules "$BUNDLE_MODULES" --strip-debug --no-header-files --no-man-pages \
      --compress=zip-0 --output "$rt" || die "jlink failed"   # xz compresses the whole tarball better
  echo "$BUNDLE_MODULES" > "$rt/.modules"
}

# Copy a jar with its entries stored, not deflated; natives-only jars lose the libraries we never load.
store_jar() {
  local src=$1 dst=$2 tmp
  tmp=$(mktemp -d)
  if ! (cd "$tmp" && unzip -q -o "$src" && rm -f lib/libJNvPTXCompiler-* lib/libJNvrtc-* && zip -q -0 -r -X "$dst" .); then
    rm -rf "$tmp"
    die "bundle: cannot store $src in the bundle (unzip or zip failed above)"
  fi
  rm -rf "$tmp"
}

# The bundle draws charts where the node has no libfontconfig (its runtime's lib/fontconfig.properties): checked by
# drawing the recorded results with libfontconfig hidden in a private mount namespace (as root; else as things are).
bundle_check_charts() {
  local out=$1 tmp lib csv="$ROOT/results/data-parallel-2gpu/fashion/epochs.csv" how="with this machine's fontconfig"
  [ -f "$csv" ] || return 0
  tmp=$(mktemp -d)
  # awk reads to the end: leaving early would stop ldconfig with SIGPIPE, which pipefail and set -e turn into an exit
  lib=$(ldconfig -p 2>/dev/null | awk '/libfontconfig\.so\.1 / && !found {print $NF; found = 1}')
  if [ "$(id -u)" = 0 ] && [ -n "$lib" ] && command -v unshare >/dev/null \
     && unshare -m sh -c "mount --bind /dev/null '$(readlink -f "$lib")'" 2>/dev/null; then
    how="without libfontconfig"
    unshare -m sh -c "mount --bind /dev/null '$(readlink -f "$lib")' && exec '$out/bin/mpi2nccl' run --from-csv '$csv' --out '$tmp/r'" \
      > "$tmp/log" 2>&1
  else
    "$out/bin/mpi2nccl" run --from-csv "$csv" --out "$tmp/r" > "$tmp/log" 2>&1
  fi
  if [ -s "$tmp/r/speedup.png" ] && ! grep -q "no plot" "$tmp/log"; then
    say "bundle: charts drawn $how"
    rm -rf "$tmp"
  else
    cat "$tmp/log" >&2; rm -rf "$tmp"
    die "bundle: the bundled runtime could not draw a chart $how (fonts: runtime/lib/fontconfig.properties, fonts/fonts.conf)"
  fi
}

out="$BUILD/bundle"
tarball="$BUILD/mpi2nccl-bundle.tar.xz"
bundle_runtime
say "bundle: assembling $out"
rm -rf "$out" && mkdir -p "$out/lib" "$out/test"
cp -a "$BUILD/bundle-runtime" "$out/runtime"
# ct.sym (11 MB) holds older platforms' APIs for javac --release N; JShell compiles against the running JDK and
# never reads it (lessons run through `mpi2nccl execute` without it), and the bundle must fit a 64 MiB transfer.
rm -f "$out/runtime/lib/ct.sym"
mkdir -p "$BUILD/bundle-jars"     # stored copies, remade only when their jar changed
for j in "$TOOLKIT_JAR" "$TOOLKIT_LIB"/*.jar; do
  # icu4j (8 MB) only serves Tablesaw's charset guessing when reading files. jeromq stays (about 0.6 MB): no
  # socket is opened on a GPU node, but `mpi2nccl execute` runs the kernel's execute handler, whose classes name it.
  case "$(basename "$j")" in icu4j-*) continue;; esac
  stored="$BUILD/bundle-jars/$(basename "$j")"
  [ -f "$stored" ] && [ "$stored" -nt "$j" ] || { rm -f "$stored"; store_jar "$j" "$stored"; }
  cp "$stored" "$out/lib/"
done
cp -a "$ROOT/toolkit/target/test-classes" "$out/test/classes"
# the layering test reads the compiled toolkit with ArchUnit, which the bundle does not carry: a check of the build
rm -rf "$out/test/classes/org/mpi2nccl/layers"
mvn -q -B dependency:copy -Dartifact="$JUNIT_CONSOLE" -DoutputDirectory="$out/test" >"$BUILD/mvn-junit-console.log" 2>&1 \
  || die "could not fetch $JUNIT_CONSOLE (see $BUILD/mvn-junit-console.log)"
mv "$out"/test/junit-platform-console-standalone-*.jar "$out/test/junit-console.jar"
cp -aL "$MPJ_HOME" "$out/mpj-home"
cp -a "$ROOT/toolkit/src/bundle/bin" "$out/bin"
# Charts need a font, and a bare GPU node may have none ("Fontconfig head is null"): carry DejaVu Sans, in the
# runtime's lib/fonts. Where the node has libfontconfig, fonts/fonts.conf points it there (bin/env.sh); where it
# has none, the runtime's own lib/fontconfig.properties maps Java's logical fonts to the same files.
mkdir -p "$out/fonts" "$out/runtime/lib/fonts"
cp /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf "$out/runtime/lib/fonts/"
cp "$ROOT/toolkit/src/bundle/fontconfig.properties" "$out/runtime/lib/"
cp "$ROOT/toolkit/src/bundle/fonts.conf" "$out/fonts/"
# Which commit the bundle was built from: the GPU machine's copy of the tree has no usable git history.
(cd "$ROOT" && git describe --always --dirty 2>/dev/null || echo unknown) > "$out/COMMIT"
bundle_check_charts "$out"
say "bundle: compressing"
tar -C "$BUILD" -cf - bundle | xz -T0 -3 > "$tarball"
say "bundle: $tarball ($(du -h "$tarball" | cut -f1)); on the GPU machine: tar xJf $(basename "$tarball") && bundle/bin/mpi2nccl --help"
