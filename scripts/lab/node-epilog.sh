#!/bin/sh
# Slurm's epilog for the lab (root, on each node, when a job ends). On the machine itself Slurm ends a job's
# processes (proctrack/linuxproc), and nothing is done here: the student's Jupyter server and kernel run there too.
# On lesson 08's nodes (network namespaces m2nlab-node*, one student's job at a time) a process the job detached
# (setsid, nohup) would outlive it and could answer the next student's job on the node's ports: every process of
# the job's user in this node's network namespace is killed.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
case "$SLURMD_NODENAME" in node[0-9]*) ;; *) exit 0 ;; esac
case "$(ip netns identify $$ 2>/dev/null)" in m2nlab-node[0-9]*) ;; *) exit 0 ;; esac
here=$(readlink /proc/self/ns/net)
[ -n "$here" ] && [ -n "$SLURM_JOB_UID" ] && [ "$SLURM_JOB_UID" != 0 ] || exit 0
for p in /proc/[0-9]*; do
  [ "$(stat -c %u "$p" 2>/dev/null)" = "$SLURM_JOB_UID" ] || continue
  [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$here" ] && kill -KILL "${p#/proc/}" 2>/dev/null
done
exit 0
