#!/usr/bin/env bash
# ./build.sh setup: Debian packages, Debian's mpj.jar in the local Maven repository, MPJ_HOME, the CUDA kernels,
# the Maven build and the Jupyter kernelspec. Idempotent: each step checks a stamp and is skipped (quietly) when
# nothing changed.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Debian packages the project needs (a JDK and Maven only when java, javac or mvn is missing).
APT_PACKAGES=(libmpj-java liblog4j1.2-java libcommons-cli-java libcommons-io-java libcommons-codec-java
              dataset-fashion-mnist jupyter-notebook jupyter-nbconvert python3-nbclient jupyter-client
              libopenblas0-pthread iproute2 fonts-dejavu-core bubblewrap)
MPJ_VERSION=$(pom_property mpj.version)

setup_packages() {
  local tools=()
  command -v java  >/dev/null 2>&1 || tools+=(default-jdk-headless)
  command -v javac >/dev/null 2>&1 || tools+=(default-jdk-headless)
  command -v mvn   >/dev/null 2>&1 || tools+=(maven)
  apt_install packages "${tools[@]}" $(missing_debs "${APT_PACKAGES[@]}")
}

# Debian's mpj.jar is not on Maven Central: put it into the local Maven repository under our own coordinates.
setup_mpj_in_maven() {
  local repo="${HOME}/.m2/repository/org/mpi2nccl/thirdparty/mpj/$MPJ_VERSION/mpj-$MPJ_VERSION.jar"
  [ -f "$repo" ] && cmp -s "$repo" /usr/share/java/mpj.jar && return 0
  say "set-up: installing Debian's mpj.jar into the local Maven repository"
  mvn -q -B install:install-file -Dfile=/usr/share/java/mpj.jar -DgroupId=org.mpi2nccl.thirdparty \
      -DartifactId=mpj -Dversion="$MPJ_VERSION" -Dpackaging=jar >"$BUILD/mvn-install-mpj.log" 2>&1 \
    || die "could not install mpj.jar into ~/.m2 (see $BUILD/mvn-install-mpj.log)"
}

# MPJ_HOME = Debian's MPJ jars + the four jars their manifests name by relative path + our conf/.
# (Debian's package does not run as shipped: NoClassDefFoundError org/apache/log4j/Layout.)
setup_mpj_home() {
  local stamp="$MPJ_HOME/.stamp" j
  if [ -f "$stamp" ] && [ -z "$(find "$ROOT/mpj-config" /usr/share/mpj/lib -newer "$stamp" 2>/dev/null | head -1)" ]; then
    return 0
  fi
  say "set-up: assembling MPJ_HOME in $MPJ_HOME"
  rm -rf "$MPJ_HOME" && mkdir -p "$MPJ_HOME/lib" "$MPJ_HOME/conf"
  for j in /usr/share/mpj/lib/*.jar; do
    case "$j" in *-"$MPJ_VERSION".jar) continue;; esac       # the unversioned names are the ones manifests use
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
  local out="$BUILD/native" cu name arch
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

# Maven build, only when a source (the tests' too: the GPU bundle carries their classes), a POM, a PTX or a recorded
# result (the toolkit carries those lessons read) changed since the last one.
setup_java() {
  local stamp="$BUILD/.java-stamp"
  if [ -f "$stamp" ] && [ -f "$TOOLKIT_JAR" ] && [ -z "$(find "$ROOT/pom.xml" "$ROOT/toolkit/pom.xml" \
        "$ROOT/toolkit/core/pom.xml" "$ROOT/toolkit/core/src" "$ROOT/toolkit/src/main" "$ROOT/toolkit/src/test" "$BUILD/native" "$ROOT/results" -newer "$stamp" 2>/dev/null | head -1)" ]; then
    return 0
  fi
  say "set-up: mvn package (toolkit)"
  if ! (cd "$ROOT" && mvn -q -B -DskipTests package) >"$BUILD/mvn-package.log" 2>&1; then
    tail -40 "$BUILD/mvn-package.log" >&2
    die "mvn package failed (whole log: $BUILD/mvn-package.log)"
  fi
  touch "$stamp"
}

# kernel.json: how Jupyter starts the kernel (this checkout's java, jar and MPJ_HOME; interrupts as messages,
# so that an interrupt reaches the rank engines; Java's temporary files, such as the native libraries a library
# unpacks, in the user's private folder rather than the shared /tmp). The display name says which checkout it runs.
kernelspec_json() {
  "$JUPYTER_PY" - "$(readlink -f "$(command -v java)")" "$(classpath)" "$MPJ_HOME" \
      "$JAVA_OPTS_DEFAULT -Djava.io.tmpdir=${TMPDIR:-/tmp}/mpi2nccl-$(id -un)" "$KERNEL_DISPLAY_NAME" <<'PY'
import json, sys
java, cp, mpj_home, opts, display = sys.argv[1:6]
print(json.dumps({
    "argv": [java] + opts.split() + ["-cp", cp, "org.mpi2nccl.kernel.KernelMain", "{connection_file}"],
    "display_name": display,
    "language": "java",
    "interrupt_mode": "message",
    "env": {"MPJ_HOME": mpj_home},
}, indent=1))
PY
}

# The kernelspec, twice with the same kernel.json:
# - build/jupyter/kernels/mpi2nccl-java: the name the lessons' metadata gives. Every Jupyter started from here
#   (./build.sh test, ./build.sh notebook) puts build/jupyter first on JUPYTER_PATH (lib.sh), so there the lessons
#   run this checkout's toolkit, whatever other checkouts exist.
# - installed for the user as mpi2nccl-java-HASH (HASH from this checkout's path), shown as "Java (mpi2nccl,
#   FOLDER)": for Jupyter front-ends started elsewhere, where the student picks it by name. Each checkout
#   installs and updates only its own, so no checkout repoints another's kernel.
setup_kernelspec() {
  local dir="$BUILD/jupyter/kernels/$KERNEL_NAME" spec reason
  # where `jupyter kernelspec install --user` writes (jupyter_core's data folder)
  local data="${JUPYTER_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/jupyter}"
  local user_spec="$data/kernels/$KERNEL_USER_NAME/kernel.json"
  spec=$(kernelspec_json)
  mkdir -p "$dir"
  [ -f "$dir/kernel.json" ] && [ "$(cat "$dir/kernel.json")" = "$spec" ] || printf '%s\n' "$spec" >"$dir/kernel.json"
  cmp -s "$dir/kernel.json" "$user_spec" && return 0
  say "set-up: installing the Jupyter kernel \"$KERNEL_DISPLAY_NAME\" ($KERNEL_USER_NAME) for $(id -un)"
  jupyter kernelspec install --user --name "$KERNEL_USER_NAME" "$dir" >"$BUILD/kernelspec-install.log" 2>&1 && return 0
  # Only Jupyters started elsewhere need the user's copy: a read-only or full home is named, and the set-up goes on.
  reason=$(grep -v '^[[:space:]]*$' "$BUILD/kernelspec-install.log" | tail -1)
  printf '%s\n' "build.sh: warning: the kernel could not be installed for $(id -un) in $data/kernels: ${reason:-no reason given}" \
    "  ./build.sh notebook and the tests do not need it (they use $BUILD/jupyter). To pick the kernel in a Jupyter" \
    "  started elsewhere, make $data writable or set JUPYTER_DATA_DIR to a writable folder, then run ./build.sh setup again." >&2
}

mkdir -p "$BUILD"
setup_packages
setup_mpj_in_maven
setup_mpj_home
setup_native
setup_java
setup_kernelspec
