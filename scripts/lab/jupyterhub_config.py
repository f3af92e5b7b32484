# The lab's JupyterHub, written by `./build.sh lab install` to /etc/mpi2nccl/jupyterhub_config.py: every student
# logs in with their Unix account (PAM), gets a Jupyter server of their own running as that account, with the
# mpi2nccl kernel and a private workspace (0700) that holds the student versions of the lessons. The reference
# answers stay in the instructor's checkout, which the install makes private to its owner.
import os
import pwd
import subprocess

PREFIX = "@PREFIX@"           # the toolkit as students may read it (no reference answers)
GROUP = "@GROUP@"             # who may log in
STATE = "@STATE@"             # the hub's own files: its database and cookie secret (root only)

c = get_config()  # noqa: F821 (JupyterHub provides it)
c.JupyterHub.bind_url = "http://@BIND@:@PORT@"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.db_url = f"sqlite:///{STATE}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = f"{STATE}/jupyterhub_cookie_secret"
c.JupyterHub.pid_file = f"{STATE}/jupyterhub.pid"
c.ConfigurableHTTPProxy.pid_file = f"{STATE}/jupyterhub-proxy.pid"
# Debian's proxy finds its modules in /usr/share/nodejs; a Node.js from elsewhere (NodeSource's) does not look there.
os.environ["NODE_PATH"] = ":".join(p for p in ("/usr/share/nodejs", os.environ.get("NODE_PATH")) if p)
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allowed_users = set()
c.LocalAuthenticator.allowed_groups = {GROUP}
c.PAMAuthenticator.open_sessions = False   # no login session of its own per server (no systemd-logind needed)

c.Spawner.default_url = "/tree"
c.Spawner.notebook_dir = "~/mpi2nccl"
c.Spawner.cmd = ["jupyterhub-singleuser"]
# How long the measuring lessons run, when the hub was started with it (the lab's own test runs them short).
c.Spawner.env_keep.append("MPI2NCCL_LESSON_LENGTH")
c.Spawner.environment = {
    # A job whose ranks all run here may only run in a network of its own (MPJ's daemon listens unauthenticated).
    "MPI2NCCL_PRIVATE_NETWORK": "require",
    "JUPYTERHUB_SINGLEUSER_APP": "notebook.notebookapp.NotebookApp",
}


def make_workspace(spawner):
    """The student's ~/mpi2nccl (0700), with every lesson they do not have yet (0600); their edits are kept."""
    user = pwd.getpwnam(spawner.user.name)
    subprocess.run(["runuser", "-u", user.pw_name, "--", f"{PREFIX}/bin/mpi2nccl-workspace", f"{PREFIX}/lessons",
                    os.path.join(user.pw_dir, "mpi2nccl")], check=True, timeout=60)


c.Spawner.pre_spawn_hook = make_workspace
