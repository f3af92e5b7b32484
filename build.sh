#!/usr/bin/env bash
# mpi2nccl: one entry point for set-up, the main job, the tests and the GPU bundle.
#
#   ./build.sh run       the main job (set-up first)
#   ./build.sh test      every test (set-up first)
#   ./build.sh bundle    a self-contained tarball for GPU machines without Java
#   ./build.sh notebook  Jupyter Notebook on localhost with notebooks/ open
#   ./build.sh setup     only the set-up: packages, Maven build, MPJ_HOME, GPU kernels
#
# Set-up is idempotent: each step checks a stamp and is skipped (quietly) when nothing changed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD="$ROOT/build"
export MPJ_HOME="$BUILD/mpj-home"
TOOLKIT_JAR="$ROOT/toolkit/target/mpi2nccl-toolkit.jar"
TOOLKIT_LIB="$ROOT/toolkit/target/lib"
JAVA_OPTS_DEFAULT="--enable-native-access=ALL-UNNAMED"

# Debian packages the project needs, and the command each one provides (for the "what is missing" message).
APT_PACKAGES=(libmpj-java liblog4j1.2-java libcommons-cli-java libcommons-io-java libcommons-codec-java
              dataset-fashion-mnist jupyter-notebook jupyter-nbconvert python3-nbclient jupyter-client
              libopenblas0-pthread iproute2 fonts-dejavu-core)

say()  { printf '%s\n' "$*"; }
die()  { printf 'build.sh: %s\n' "$*" >&2; exit 1; }

# --- set-up ---------------------------------------------------------------------------------------

missing_packages() {
  local p missing=()
  command -v java  >/dev/null 2>&1 || missing+=(default-jdk-headless)
  command -v javac >/dev/null 2>&1 || missing+=(default-jdk-headless)
  command -v mvn   >/dev/null 2>&1 || missing+=(maven)
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  printf '%s\n' "${missing[@]}" | sort -u | grep -v '^$' || true
}

setup_packages() {
  local missing
  missing=$(missing_packages)
  [ -z "$missing" ] && return 0
  say "set-up: installing Debian packages: $(echo $missing)"
  if [ "$(id -u)" != 0 ]; then
    die "missing Debian packages: $(echo $missing). Not root, so I cannot install them: run
  sudo apt-get update && sudo apt-get install -y $(echo $missing)
then ./build.sh again."
  fi
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing; } \
        >"$BUILD/apt.log" 2>&1; then
    die "could not install: $(echo $missing) (no network or no Debian mirror?). apt's output is in
  $BUILD/apt.log
Install them by hand (apt-get install $(echo $missing)) and run ./build.sh again."
  fi
}

# Debian's mpj.jar is not on Maven Central: put it into the local Maven repository under our own coordinates.
setup_mpj_in_maven() {
  local repo="${HOME}/.m2/repository/org/mpi2nccl/thirdparty/mpj/0.44/mpj-0.44.jar"
  [ -f "$repo" ] && cmp -s "$repo" /usr/share/java/mpj.jar && return 0
  say "set-up: installing Debian's mpj.jar into the local Maven repository"
  mvn -q -B install:install-file -Dfile=/usr/share/java/mpj.jar -DgroupId=org.mpi2nccl.thirdparty \
      -DartifactId=mpj -Dversion=0.44 -Dpackaging=jar >"$BUILD/mvn-install-mpj.log" 2>&1 \
    || die "could not install mpj.jar into ~/.m2 (see $BUILD/mvn-install-mpj.log)"
}

# MPJ_HOME = Debian's MPJ jars + the four jars their manifests name by relative path + our conf/.
# (Debian's package does not run as shipped: NoClassDefFoundError org/apache/log4j/Layout.)
setup_mpj_home() {
  local stamp="$MPJ_HOME/.stamp"
  if [ -f "$stamp" ] && [ -z "$(find "$ROOT/mpj-config" /usr/share/mpj/lib -newer "$stamp" 2>/dev/null | head -1)" ]; then
    return 0
  fi
  say "set-up: assembling MPJ_HOME in $MPJ_HOME"
  rm -rf "$MPJ_HOME" && mkdir -p "$MPJ_HOME/lib" "$MPJ_HOME/conf"
  local j
  for j in /usr/share/mpj/lib/*.jar; do
    case "$j" in *-0.44.jar) continue;; esac       # the unversioned names are the ones manifests use
    cp -L "$j" "$MPJ_HOME/lib/"
  done
  for j in log4j-1.2 commons-cli commons-io commons-codec; do
    cp -L "/usr/share/java/$j.jar" "$MPJ_HOME/lib/$j.jar"
  done
  cp "$ROOT/mpj-config/mpjexpress.conf" "$MPJ_HOME/conf/mpjexpress.conf"
  cp "$ROOT/mpj-config/machines.local" "$MPJ_HOME/conf/machines.local"
  touch "$stamp"
}

# CUDA kernels: native/*.cu -> build/native/*.ptx (compute_90 and a portable compute_75 PTX) and *.sm90.fatbin.
setup_native() {
  local out="$BUILD/native" cu name
  if ! command -v nvcc >/dev/null 2>&1; then
    [ -n "${QUIET_SETUP:-}" ] || say "GPU kernels: skipped (no nvcc)"
    return 0
  fi
  mkdir -p "$out"
  for cu in "$ROOT"/native/*.cu; do
    [ -e "$cu" ] || continue
    name=$(basename "$cu" .cu)
    for arch in 90 75; do
      if [ ! -f "$out/${name}.sm${arch}.ptx" ] || [ "$cu" -nt "$out/${name}.sm${arch}.ptx" ] \
         || [ -n "$(find "$ROOT/native" -name '*.cuh' -newer "$out/${name}.sm${arch}.ptx" | head -1)" ]; then
        say "GPU kernels: nvcc $name.cu -> ${name}.sm${arch}.ptx"
        nvcc -ptx -arch=compute_${arch} -O3 -std=c++17 -I"$ROOT/native" -o "$out/${name}.sm${arch}.ptx" "$cu" \
          || die "nvcc failed on native/$name.cu"
      fi
    done
    # Hopper machine code beside the PTX: loading PTX makes the driver compile it first (2.5 s per process on an
    # H200 with a cold cache, measured with Flight Recorder); the fatbin also holds the PTX for newer GPUs.
    if [ ! -f "$out/${name}.sm90.fatbin" ] || [ "$out/${name}.sm90.ptx" -nt "$out/${name}.sm90.fatbin" ]; then
      say "GPU kernels: nvcc $name.cu -> ${name}.sm90.fatbin (sm_90 code + compute_90 PTX)"
      nvcc -fatbin -gencode "arch=compute_90,code=[sm_90,compute_90]" -O3 -std=c++17 -I"$ROOT/native" \
          -o "$out/${name}.sm90.fatbin" "$cu" || die "nvcc failed on native/$name.cu"
    fi
  done
}

# Maven build, only when a source, a POM or a PTX changed since the last one.
setup_java() {
  local stamp="$BUILD/.java-stamp"
  if [ -f "$stamp" ] && [ -f "$TOOLKIT_JAR" ] && [ -z "$(find "$ROOT/pom.xml" "$ROOT/toolkit/pom.xml" \
        "$ROOT/toolkit/src/main" "$BUILD/native" -newer "$stamp" 2>/dev/null | head -1)" ]; then
    return 0
  fi
  say "set-up: mvn package (toolkit)"
  if ! (cd "$ROOT" && mvn -q -B -DskipTests package) >"$BUILD/mvn-package.log" 2>&1; then
    tail -40 "$BUILD/mvn-package.log" >&2
    die "mvn package failed (whole log: $BUILD/mvn-package.log)"
  fi
  touch "$stamp"
}

setup() {
  mkdir -p "$BUILD"
  setup_packages
  setup_mpj_in_maven
  setup_mpj_home
  setup_native
  setup_java
  setup_kernelspec
}

# --- the GPU bundle -------------------------------------------------------------------------------
# A tarball for GPU machines that have CUDA but no Java: a jlinked runtime, the toolkit and its jars, the
# test classes with JUnit's console launcher, MPJ_HOME and bin/. Jars are stored uncompressed so that xz
# compresses the whole tarball at once: fastutil's 78 MB of classes then take 3 MB instead of 23.
# jdk.jshell (with javac) is for the kernel's rank engines, one GPU per rank: about 9 MB more in the tarball.
# jdk.jfr lets results/device/profile-step.sh record where a GPU rank spends its host time (Flight Recorder).
BUNDLE_MODULES=java.base,java.desktop,java.logging,java.management,java.naming,java.sql,jdk.management,jdk.unsupported,jdk.jshell,jdk.jfr
JUNIT_CONSOLE=org.junit.platform:junit-platform-console-standalone:1.11.4

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
  (cd "$tmp" && unzip -q -o "$src" && rm -f lib/libJNvPTXCompiler-* lib/libJNvrtc-* && zip -q -0 -r -X "$dst" .)
  rm -rf "$tmp"
}

# The bundle draws charts where the node has no libfontconfig (its runtime's lib/fontconfig.properties): checked by
# drawing the recorded results with libfontconfig hidden in a private mount namespace (as root; else as things are).
bundle_check_charts() {
  local out=$1 tmp lib csv="$ROOT/results/dist-check/fashion/epochs.csv" how="with this machine's fontconfig"
  [ -f "$csv" ] || return 0
  tmp=$(mktemp -d)
  lib=$(ldconfig -p 2>/dev/null | awk '/libfontconfig\.so\.1 /{print $NF; exit}')
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

cmd_bundle() {
  local out="$BUILD/bundle" tarball="$BUILD/mpi2nccl-bundle.tar.xz" j
  bundle_runtime
  say "bundle: assembling $out"
  rm -rf "$out" && mkdir -p "$out/lib" "$out/test"
  cp -a "$BUILD/bundle-runtime" "$out/runtime"
  mkdir -p "$BUILD/bundle-jars"     # stored copies, remade only when their jar changed
  for j in "$TOOLKIT_JAR" "$TOOLKIT_LIB"/*.jar; do
    # Jupyter's wire (jeromq) stays home: rank engines only need basekernel's display classes.
    # icu4j (8 MB) only serves Tablesaw's charset guessing when reading files.
    case "$(basename "$j")" in jeromq-*|jnacl-*|icu4j-*) continue;; esac
    local stored="$BUILD/bundle-jars/$(basename "$j")"
    [ -f "$stored" ] && [ "$stored" -nt "$j" ] || { rm -f "$stored"; store_jar "$j" "$stored"; }
    cp "$stored" "$out/lib/"
  done
  cp -a "$ROOT/toolkit/target/test-classes" "$out/test/classes"
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
}

# --- the Jupyter kernel ---------------------------------------------------------------------------
# Debian's Jupyter runs on Debian's python (/usr/bin/python3), not on the first python3 on PATH.
JUPYTER_PY=/usr/bin/python3
KERNEL_NAME=mpi2nccl-java
# This checkout's kernelspec comes first for every Jupyter started from here (tests, ./build.sh notebook),
# whatever another checkout installed for the user.
export JUPYTER_PATH="$BUILD/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"

# kernel.json: how Jupyter starts the kernel (this checkout's java, jar and MPJ_HOME; interrupts as messages,
# so that an interrupt reaches the rank engines).
kernelspec_json() {
  "$JUPYTER_PY" - "$(readlink -f "$(command -v java)")" "$(classpath)" "$MPJ_HOME" "$JAVA_OPTS_DEFAULT" <<'PY'
import json, sys
java, cp, mpj_home, opts = sys.argv[1:5]
print(json.dumps({
    "argv": [java] + opts.split() + ["-cp", cp, "org.mpi2nccl.kernel.KernelMain", "{connection_file}"],
    "display_name": "Java (mpi2nccl)",
    "language": "java",
    "interrupt_mode": "message",
    "env": {"MPJ_HOME": mpj_home},
}, indent=1))
PY
}

# The kernelspec, in build/jupyter and installed for the user (only when it changed).
setup_kernelspec() {
  local dir="$BUILD/jupyter/kernels/$KERNEL_NAME" spec
  local user_spec="${XDG_DATA_HOME:-$HOME/.local/share}/jupyter/kernels/$KERNEL_NAME/kernel.json"
  spec=$(kernelspec_json)
  mkdir -p "$dir"
  [ -f "$dir/kernel.json" ] && [ "$(cat "$dir/kernel.json")" = "$spec" ] || printf '%s\n' "$spec" >"$dir/kernel.json"
  cmp -s "$dir/kernel.json" "$user_spec" && return 0
  say "set-up: installing the Jupyter kernel \"Java (mpi2nccl)\" for $(id -un)"
  jupyter kernelspec install --user --name "$KERNEL_NAME" "$dir" >"$BUILD/kernelspec-install.log" 2>&1 \
    || die "jupyter kernelspec install failed (see $BUILD/kernelspec-install.log)"
}

# ./build.sh notebook: Jupyter Notebook on localhost, notebooks/ open. Jupyter prints the URL with its token.
cmd_notebook() {
  local port=${NOTEBOOK_PORT:-8888} root_flag=()
  [ "$(id -u)" = 0 ] && root_flag=(--allow-root)
  say "Starting Jupyter Notebook on http://127.0.0.1:$port (kernel \"Java (mpi2nccl)\"); Ctrl-C stops it."
  say "Open the URL with the token that Jupyter prints below."
  cd "$ROOT/notebooks"
  exec jupyter notebook --no-browser --ip=127.0.0.1 --port="$port" --notebook-dir="$ROOT/notebooks" "${root_flag[@]}"
}

# The bundle's env.sh, sourced the way its commands source it (set -euo pipefail): with no LD_LIBRARY_PATH, and
# with a folder holding a libnccl.so.2, which must come first. A failing line in it ends every bundle command
# silently, so this runs first.
test_bundle_env() {
  say "== bundle env.sh under set -euo pipefail"
  local fake; fake=$(mktemp -d)
  mkdir -p "$fake/nccl" && : > "$fake/nccl/libnccl.so.2"
  local got
  got=$(env -u LD_LIBRARY_PATH -u NCCL_HOME bash -euo pipefail -c "source '$ROOT/toolkit/src/bundle/bin/env.sh'; echo ok") \
    || { rm -rf "$fake"; die "bundle env.sh fails with no LD_LIBRARY_PATH set"; }
  got=$(env -u NCCL_HOME LD_LIBRARY_PATH="/nonexistent:$fake/nccl" bash -euo pipefail -c \
      "source '$ROOT/toolkit/src/bundle/bin/env.sh'; echo \"\$LD_LIBRARY_PATH\"") \
    || { rm -rf "$fake"; die "bundle env.sh fails with LD_LIBRARY_PATH=/nonexistent:$fake/nccl"; }
  rm -rf "$fake"
  case "$got" in "$fake/nccl:"*) echo "ok: the folder with libnccl.so.2 comes first ($got)";;
    *) die "bundle env.sh: expected the folder with libnccl.so.2 first on LD_LIBRARY_PATH, got '$got'";; esac
}

# Kernel tests over the Jupyter protocol (jupyter_client): displays, %%mpj state, interrupt, crash, shutdown.
test_kernel() {
  say "== kernel tests over the Jupyter protocol"
  (cd "$ROOT" && "$JUPYTER_PY" -m unittest discover -s toolkit/src/test/jupyter -p 'test_*.py' -v)
}

# Every notebook, executed headless by Debian's nbclient with this kernel; exercise checks get the reference
# answers from notebooks/test/answers/. Executed copies go to build/notebooks/.
test_notebooks() {
  say "== notebooks (nbclient, headless)"
  (cd "$ROOT" && "$JUPYTER_PY" notebooks/test/run_notebooks.py --out "$BUILD/notebooks" notebooks/*.ipynb)
}

# The browser test needs Debian's chromium and playwright-core (pinned in notebooks/test/browser/package.json).
setup_browser() {
  local dir="$ROOT/notebooks/test/browser"
  if ! command -v chromium >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] || die "the browser test needs chromium: sudo apt-get install -y chromium"
    say "set-up: installing chromium (browser test)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } \
      >"$BUILD/apt-chromium.log" 2>&1 || die "could not install chromium (see $BUILD/apt-chromium.log)"
  fi
  if [ ! -f "$dir/node_modules/.stamp" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.stamp" ]; then
    command -v npm >/dev/null 2>&1 || die "the browser test needs npm: apt-get install -y npm"
    say "set-up: npm ci (playwright-core, browser test)"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >"$BUILD/npm-browser.log" 2>&1 \
      || die "npm ci failed in $dir (see $BUILD/npm-browser.log)"
    touch "$dir/node_modules/.stamp"
  fi
}

# A real browser: headless chromium opens the notebook server, runs lesson 01, waits for [rank 3] and an
# inline image, and saves a screenshot to build/browser/.
test_browser() {
  setup_browser
  say "== browser test (chromium, lesson 01)"
  (cd "$ROOT" && node notebooks/test/browser/lesson01.mjs "$BUILD/browser")
}

# --- commands -------------------------------------------------------------------------------------

classpath() { echo "$TOOLKIT_JAR:$TOOLKIT_LIB/*"; }

# OpenBLAS on one thread per call: the toolkit spreads GEMMs over the cores itself (tensor.cpu.Gemm says why).
toolkit() { OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} java $JAVA_OPTS_DEFAULT ${JAVA_OPTS:-} -cp "$(classpath)" org.mpi2nccl.Cli "$@"; }

cmd_test() {
  test_bundle_env
  say "== unit and integration tests (mvn test)"
  (cd "$ROOT" && mvn -B test)
  test_kernel
  test_notebooks
  test_browser
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
  setup)    setup ;;
  run)      setup; MPI2NCCL_REPORT_DIR="${MPI2NCCL_REPORT_DIR:-$BUILD/report}" toolkit run "$@" ;;
  test)     setup; cmd_test "$@" ;;
  cli)      setup; toolkit "$@" ;;
  bundle)   setup; cmd_bundle "$@" ;;
  notebook) setup; cmd_notebook "$@" ;;
  ""|-h|--help|help)
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) die "unknown command '$cmd'. Use one of: run, test, bundle, notebook, setup, cli." ;;
esac
