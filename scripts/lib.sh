# Shared by build.sh and the scripts under scripts/ (sourced, never run): the project's paths, messages, the
# versions kept in pom.xml, Debian packages installed on demand, and the toolkit's command line.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD="$ROOT/build"
export MPJ_HOME="$BUILD/mpj-home"
TOOLKIT_JAR="$ROOT/toolkit/target/mpi2nccl-toolkit.jar"
TOOLKIT_LIB="$ROOT/toolkit/target/lib"
JAVA_OPTS_DEFAULT="--enable-native-access=ALL-UNNAMED"
# The command-line entry point: every subcommand of `./build.sh cli` and of the bundle's bin/mpi2nccl.
MAIN_CLASS=org.mpi2nccl.cli.Main

# Debian's Jupyter runs on Debian's python (/usr/bin/python3), not on the first python3 on PATH.
JUPYTER_PY=/usr/bin/python3
KERNEL_NAME=mpi2nccl-java
# The kernel this checkout installs for the user (scripts/setup.sh says why there are two names).
KERNEL_USER_NAME="mpi2nccl-java-$(printf '%s' "$ROOT" | sha1sum | cut -c1-8)"
KERNEL_DISPLAY_NAME="Java (mpi2nccl, $(basename "$ROOT"))"
# This checkout's kernelspec comes first for every Jupyter started from here (tests, ./build.sh notebook),
# whatever another checkout installed for the user.
export JUPYTER_PATH="$BUILD/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"

say()  { printf '%s\n' "$*"; }
die()  { printf 'build.sh: %s\n' "$*" >&2; exit 1; }

# pom_property NAME: a version from the parent pom's <properties>, the one place versions live.
pom_property() {
  local v
  v=$(sed -n "s|^[[:space:]]*<$1>\([^<]*\)</$1>.*|\1|p" "$ROOT/pom.xml" | head -1)
  [ -n "$v" ] || die "no <$1> property in pom.xml"
  printf '%s\n' "$v"
}

# missing_debs PKG...: those of the Debian packages not installed.
missing_debs() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || printf '%s\n' "$p"
  done
}

# apt_install WHY PKG...: installs the missing ones (as root), or says what to run (not root). apt's output goes
# to build/apt-WHY.log.
apt_install() {
  local why=$1 missing
  shift
  missing=$(printf '%s\n' "$@" | sort -u | grep -v '^$' || true)
  [ -z "$missing" ] && return 0
  missing=$(echo $missing)
  if [ "$(id -u)" != 0 ]; then
    die "missing Debian packages: $missing. Not root, so I cannot install them: run
  sudo apt-get update && sudo apt-get install -y $missing
then run this again."
  fi
  mkdir -p "$BUILD"
  say "set-up: installing Debian packages ($why): $missing"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing; } \
        >"$BUILD/apt-$why.log" 2>&1; then
    die "could not install: $missing (no network or no Debian mirror?). apt's output is in
  $BUILD/apt-$why.log
Install them by hand (apt-get install $missing) and run this again."
  fi
}

classpath() { echo "$TOOLKIT_JAR:$TOOLKIT_LIB/*"; }

# The toolkit's command line. OpenBLAS on one thread per call: the toolkit spreads GEMMs over the cores itself
# (tensor.cpu.Gemm says why).
toolkit() {
  OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} java $JAVA_OPTS_DEFAULT ${JAVA_OPTS:-} -cp "$(classpath)" "$MAIN_CLASS" "$@"
}
