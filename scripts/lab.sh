#!/usr/bin/env bash
# ./build.sh lab COMMAND: a lab server for a class, on Debian's JupyterHub (run after scripts/setup.sh, as root).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$(dirname "${BASH_SOURCE[0]}")/lab/slurm.sh"

PREFIX=${MPI2NCCL_LAB_PREFIX:-/opt/mpi2nccl}
ETC=${MPI2NCCL_LAB_ETC:-/etc/mpi2nccl}
STATE=${MPI2NCCL_LAB_STATE:-/var/lib/mpi2nccl-hub}
KERNELS=/usr/local/share/jupyter/kernels
GROUP=${MPI2NCCL_LAB_GROUP:-mpi2nccl-students}
LOG=/var/log/mpi2nccl-hub.log

usage() {
  cat <<EOF
usage: ./build.sh lab COMMAND   (as root)

  install [--port N] [--public] [--no-slurm] [--no-nodes]
                                  Debian's jupyterhub and configurable-http-proxy, bubblewrap; the toolkit copied
                                  to $PREFIX (students read it; no reference answers in it); the mpi2nccl kernel for
                                  every user; the hub's configuration in $ETC/jupyterhub_config.py. The hub listens
                                  on 127.0.0.1:N (default 8000), or on every interface with --public (put TLS in
                                  front of it). Slurm (slurmctld, slurmd, munge) as the lab's scheduler: this
                                  machine as one node, its GPUs granted as GRES, every student's rank engines and
                                  jobs run as Slurm job steps (a machine with its own slurm.conf keeps it;
                                  --no-slurm: jobs run locally). Lesson 08's two simulated nodes as Slurm's
                                  partition "nodes", each with its own slurmd, held by one student's lesson at a
                                  time (--no-nodes: without them, lesson 08 says it has no nodes). This checkout is
                                  made private to its owner: its notebooks hold the reference answers.
  add-student NAME                a Unix account in group $GROUP (who may log in); its password is read from
                                  standard input, one line (never from the command line)
  start | stop | status           the hub and Slurm, in the background (the hub's log: $LOG)
  -h, --help                      this text

Each student who logs in gets a Jupyter server running as their own account, with ~/mpi2nccl (0700) holding
the student versions of the lessons; their edits are kept. notebooks/INSTRUCTORS.md has the whole set-up.
EOF
}

need_root() {
  [ "$(id -u)" = 0 ] || die "lab $1 changes the machine's accounts and services: run it as root (sudo ./build.sh lab $1)"
}

install_lab() {
  local port=8000 bind=127.0.0.1 slurm=yes nodes=nodes
  while [ $# -gt 0 ]; do
    case "$1" in
      --no-slurm) slurm=no; shift ;;
      --no-nodes) nodes=; shift ;;
      --port) [[ "${2:-}" =~ ^[0-9]+$ ]] && [ "$2" -ge 1 ] && [ "$2" -le 65535 ] \
                || die "lab install --port needs a TCP port (1..65535), got '${2:-}'"; port=$2; shift 2 ;;
      --public) bind=0.0.0.0; shift ;;
      *) die "lab install: unknown option '$1' (--port N, --public, --no-slurm, --no-nodes)" ;;
    esac
  done
  apt_install lab $(missing_debs jupyterhub node-configurable-http-proxy bubblewrap util-linux curl)
  [ -f "$TOOLKIT_JAR" ] || die "the toolkit is not built: run ./build.sh setup first"

  say "lab: the toolkit for students in $PREFIX"
  rm -rf "$PREFIX.new"
  install -d -m 755 "$PREFIX.new" "$PREFIX.new/lib" "$PREFIX.new/bin" "$PREFIX.new/lessons"
  cp "$TOOLKIT_JAR" "$TOOLKIT_LIB"/*.jar "$PREFIX.new/lib/"
  cp -rL "$MPJ_HOME" "$PREFIX.new/mpj-home"
  "$JUPYTER_PY" "$ROOT/scripts/lessons/versions.py" --student "$BUILD/lessons/student" \
    --instructor "$BUILD/lessons/instructor" "$ROOT"/notebooks/*.ipynb >/dev/null
  install -m 644 "$BUILD"/lessons/student/*.ipynb "$PREFIX.new/lessons/"
  cp -r "$BUILD/lessons/student/figures" "$PREFIX.new/lessons/"     # the pictures the lessons' markdown shows
  install -m 755 "$ROOT/scripts/lab/workspace.sh" "$PREFIX.new/bin/mpi2nccl-workspace"
  install -m 755 "$ROOT/scripts/lab/kernel.sh" "$PREFIX.new/bin/mpi2nccl-kernel"
  readlink -f "$(command -v java)" > "$PREFIX.new/java-path"
  chmod -R a+rX,go-w "$PREFIX.new"
  if grep -rlq "BEGIN SOLUTION" "$PREFIX.new/lessons"; then
    rm -rf "$PREFIX.new"
    die "lab install: a reference answer is in the student lessons; nothing was installed"
  fi
  rm -rf "$PREFIX.old"
  [ -d "$PREFIX" ] && mv "$PREFIX" "$PREFIX.old"
  mv "$PREFIX.new" "$PREFIX"
  rm -rf "$PREFIX.old"

  local launcher=local
  if [ $slurm = yes ]; then
    slurm_install $nodes
    launcher=slurm
  fi

  say "lab: the mpi2nccl kernel for every user ($KERNELS/$KERNEL_NAME; jobs launched by $launcher)"
  install -d -m 755 "$KERNELS/$KERNEL_NAME"
  cat > "$KERNELS/$KERNEL_NAME/kernel.json" <<EOF
{
 "argv": ["$PREFIX/bin/mpi2nccl-kernel", "{connection_file}"],
 "display_name": "Java (mpi2nccl)",
 "language": "java",
 "interrupt_mode": "message",
 "env": {"MPI2NCCL_PRIVATE_NETWORK": "require", "MPI2NCCL_LAUNCHER": "$launcher"}
}
EOF
  chmod 644 "$KERNELS/$KERNEL_NAME/kernel.json"

  say "lab: the hub's configuration ($ETC/jupyterhub_config.py) and state ($STATE, root only)"
  groupadd -f "$GROUP"
  install -d -m 755 "$ETC"
  install -d -m 700 "$STATE"
  sed -e "s|@PREFIX@|$PREFIX|; s|@GROUP@|$GROUP|; s|@STATE@|$STATE|; s|@BIND@|$bind|; s|@PORT@|$port|" \
    "$ROOT/scripts/lab/jupyterhub_config.py" > "$ETC/jupyterhub_config.py"
  chmod 644 "$ETC/jupyterhub_config.py"

  # The reference answers: in this checkout's notebooks and in what it built (instructor versions, executed lessons).
  chmod go-rwx "$ROOT"
  say "lab: $ROOT is now private to $(stat -c %U "$ROOT") (it holds the reference answers)"
  say "lab: installed. Add students with ./build.sh lab add-student NAME, then ./build.sh lab start."
}

add_student() {
  local name=${1:-}
  [[ "$name" =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] || die "lab add-student needs an account name (lower-case letters, digits, _ and -), got '$name'"
  getent group "$GROUP" >/dev/null || die "no group $GROUP: run ./build.sh lab install first"
  local password
  IFS= read -r password || true
  [ ${#password} -ge 8 ] || die "lab add-student $name: give a password of at least 8 characters on standard input, e.g.
  ./build.sh lab add-student $name < password-file"
  if id "$name" >/dev/null 2>&1; then
    usermod -a -G "$GROUP" "$name"
  else
    useradd -m -s /bin/bash -G "$GROUP" "$name"
  fi
  chmod 700 "$(getent passwd "$name" | cut -d: -f6)"
  printf '%s:%s\n' "$name" "$password" | chpasswd
  say "lab: $name may log in (group $GROUP; home private to them)"
}

hub_pid() {
  local f="$STATE/jupyterhub.pid"
  [ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"
}

start_hub() {
  [ -f "$ETC/jupyterhub_config.py" ] || die "the lab is not installed: ./build.sh lab install"
  slurm_start
  if pid=$(hub_pid); then say "lab: the hub runs already (pid $pid)"; return 0; fi
  local bind port
  bind=$(sed -n 's|^c.JupyterHub.bind_url = "http://\(.*\):\([0-9]*\)"|\1|p' "$ETC/jupyterhub_config.py")
  port=$(sed -n 's|^c.JupyterHub.bind_url = "http://\(.*\):\([0-9]*\)"|\2|p' "$ETC/jupyterhub_config.py")
  (cd "$STATE" && setsid jupyterhub -f "$ETC/jupyterhub_config.py" >>"$LOG" 2>&1 < /dev/null &)
  local deadline=$((SECONDS + 60))
  until curl -fsS "http://127.0.0.1:$port/hub/api" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || die "the hub did not answer on port $port within 60 s; its log: $LOG"
    sleep 0.5
  done
  say "lab: the hub answers on http://$bind:$port (pid $(hub_pid || echo ?); log $LOG)"
}

stop_hub() {
  local pid
  if ! pid=$(hub_pid); then say "lab: the hub is not running"; slurm_stop; return 0; fi
  kill "$pid"
  local deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || { kill -9 "$pid"; break; }
    sleep 0.2
  done
  say "lab: the hub stopped (its students' servers stop with it)"
  slurm_stop
}

case "${1:-}" in
  install) need_root install; shift; install_lab "$@" ;;
  add-student) need_root add-student; add_student "${2:-}" ;;
  start) need_root start; start_hub ;;
  stop) need_root stop; stop_hub ;;
  status) slurm_status
          if pid=$(hub_pid); then say "lab: the hub runs (pid $pid)"; else say "lab: the hub is not running"; exit 1; fi ;;
  -h|--help|help|"") usage ;;
  *) die "lab: unknown command '$1' (install, add-student, start, stop, status; ./build.sh lab --help)" ;;
esac
