"""Run as root: the TCP ports on this machine's network that a user's Jupyter server and kernels listen on (Jupyter's
own protocols: the server behind the hub's log-in, the kernels' messages signed with a key only the user reads).

    /usr/bin/python3 jupyter_ports.py USER      prints PORT,PORT,..."""
import os
import pwd
import sys

uid = pwd.getpwnam(sys.argv[1]).pw_uid
inodes = set()
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if os.stat(f"/proc/{pid}").st_uid != uid:
            continue
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().decode(errors="replace")
        if "KernelMain" in cmd or "jupyterhub-singleuser" in cmd:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
    except OSError:
        pass
ports = set()
for table in ("/proc/net/tcp", "/proc/net/tcp6"):
    with open(table) as f:
        for line in f.readlines()[1:]:
            field = line.split()
            if field[3] == "0A" and field[9] in inodes:
                ports.add(int(field[1].rsplit(":", 1)[1], 16))
print(",".join(map(str, sorted(ports))))
