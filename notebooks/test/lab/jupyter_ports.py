"""Run as root: the TCP ports on this machine's network that a user's Jupyter server and kernels listen on (Jupyter's
own protocols: the server behind the hub's log-in, the kernels' messages signed with a key only the user reads), or
with --slurm those of the user's srun processes (Slurm's own: every message authenticated by munge).

    /usr/bin/python3 jupyter_ports.py [--slurm] USER      prints PORT,PORT,..."""
import os
import pwd
import sys

from neighbours import cmdline, listening_ports, socket_inodes

slurm = sys.argv[1] == "--slurm"
uid = pwd.getpwnam(sys.argv[-1]).pw_uid
inodes = set()
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if os.stat(f"/proc/{pid}").st_uid != uid:
            continue
    except OSError:
        continue
    words = cmdline(pid)
    if slurm and words[:1] and os.path.basename(words[0]) == "srun" or \
            not slurm and any("KernelMain" in w or "jupyterhub-singleuser" in w for w in words):
        inodes |= socket_inodes(pid)
print(",".join(map(str, sorted(listening_ports(inodes=inodes)))))
