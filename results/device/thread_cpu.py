#!/usr/bin/env python3
"""Which threads of the running JVMs use the CPU (issue 7, session 7): every INTERVAL seconds, for each java process,
the threads that used more than 5% of a core since the last sample, by name (Java names its native threads).
Usage: thread_cpu.py SECONDS [INTERVAL]   (prints until SECONDS have passed)"""
import os, sys, time

HZ = os.sysconf("SC_CLK_TCK")


def javas():
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if open(f"/proc/{pid}/comm").read().strip() == "java":
                    yield pid
            except OSError:
                pass


def ticks(pid):
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            s = open(f"/proc/{pid}/task/{tid}/stat").read()
            name = s[s.index("(") + 1:s.rindex(")")]
            f = s[s.rindex(")") + 2:].split()
            out[tid] = (name, int(f[11]) + int(f[12]))
        except (OSError, ValueError):
            pass
    return out


end = time.time() + float(sys.argv[1])
interval = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
before = {}
t0 = time.time()
while time.time() < end:
    now = {pid: ticks(pid) for pid in javas()}
    for pid, threads in now.items():
        old = before.get(pid, {})
        busy = [(100.0 * (t - old[tid][1]) / HZ / interval, name) for tid, (name, t) in threads.items() if tid in old]
        busy = sorted((b for b in busy if b[0] > 5), reverse=True)
        if busy:
            print(f"{time.time() - t0:6.1f}s pid {pid} ({len(threads)} threads): " + ", ".join(f"{n} {c:.0f}%" for c, n in busy[:8]), flush=True)
    before = now
    time.sleep(interval)
