"""Lesson 08's two nodes on a lab server, as a class uses them. Prints one line per check; exits 1 if any failed.

    runuser -u STUDENT -- /usr/bin/python3 slurm_nodes.py hold
        a kernel of the lab's kernelspec runs lesson 08's own calls: the nodes from Slurm, their interfaces, 4 ranks
        over both nodes, the bootstrap on the right interface, and a process detached on node0 (setsid: it outlives
        its step). Prints "held JOB" while it holds the nodes, gives them back when a line arrives on standard input,
        then checks Slurm has the job no more.
    runuser -u OTHER -- /usr/bin/python3 slurm_nodes.py attack JOB
        the other student, while the nodes are held: reaching the MPJ daemons on the nodes from the machine, taking
        the nodes too, and running a step in the holder's job must all fail.
"""
import socket
import subprocess
import sys
import time

from slurm_engines import check, execute, failures, jobs_of, lab_kernel

DAEMON_PORT = 40055   # org.mpi2nccl.launch.nodes.NodesPlan.DAEMON_PORT
NODE_ADDRESSES = ["10.212.0.1", "10.212.0.2", "10.211.0.1", "10.211.0.2"]   # control link, cluster link


def hold():
    import getpass
    me = getpass.getuser()
    km, kc = lab_kernel()
    try:
        execute(kc, "import org.mpi2nccl.lessons.*;\nimport org.mpi2nccl.launch.nodes.*;")
        t0 = time.monotonic()
        status, text = execute(kc, "SimulatedNodes nodes = Lesson08.startNodes();")
        check("nodes from Slurm", status == "ok" and "Slurm gave this notebook the lab's two nodes" in text,
              f"in {time.monotonic() - t0:.1f} s: {text.strip()[:300]}")
        held = [j for j, name in jobs_of(me) if name == "mpi2nccl-nodes"]
        check("one allocation", len(held) == 1, f"squeue lists {me}'s allocation of the nodes: {jobs_of(me)}")
        status, text = execute(kc, 'Lesson08.interfaces(nodes, 1).equals(Lesson08.interfaces(null, 1)) + " "'
                                   ' + Lesson08.interfaces(nodes, 1)')
        check("lesson 08's addresses", status == "ok" and "eth1=10.211.0.2/24" in text and "eth0=172.31.1.1/24" in text,
              f"node1's interfaces are the lesson's: {text.strip()[:300]}")
        status, text = execute(kc, "Lesson08.ranksOnNodes(nodes)")
        on = {n for n in ("node0", "node1") if f"on {n} " in text}
        check("ranks on both nodes", status == "ok" and on == {"node0", "node1"} and text.count("sum of rank+1 = 10") == 4,
              f"4 ranks over {sorted(on)}: {text.strip()[-300:]}")
        status, text = execute(kc, 'Lesson08.bootstrap(nodes, "eth1")')
        check("bootstrap", status == "ok" and "exit code 0" in text, f"rank 1 on node1 reached rank 0 on node0: {text.strip()[-200:]}")
        status, text = execute(kc, 'nodes.runOn(0, java.util.List.of("sh", "-c", "setsid -f sleep 600 < /dev/null > /dev/null 2>&1"),'
                                   ' java.util.Map.of(), java.time.Duration.ofSeconds(30), null).exitCode()')
        check("a detached process", status == "ok" and text.strip().endswith("0"), f"setsid sleep on node0: {text.strip()[:200]}")
        print(f"held {held[0] if held else 'none'}", flush=True)
        sys.stdin.readline()
        status, text = execute(kc, "nodes.close();")
        deadline = time.monotonic() + 30
        while any(name == "mpi2nccl-nodes" for _, name in jobs_of(me)) and time.monotonic() < deadline:
            time.sleep(0.3)
        check("given back", status == "ok" and not any(name == "mpi2nccl-nodes" for _, name in jobs_of(me)),
              f"no allocation of the nodes left: {jobs_of(me) or 'none'}")
        time.sleep(2)   # the nodes' epilog has run: it must have spared this kernel, which runs on the machine itself
        status, text = execute(kc, "6 * 7", timeout=60)
        check("kernel spared", status == "ok" and "42" in text, f"the student's kernel still answers after the epilog: {text.strip()[:100]}")
    finally:
        km.shutdown_kernel(now=True)
    print("done", flush=True)


def attack(job):
    for address in NODE_ADDRESSES:
        try:
            with socket.create_connection((address, DAEMON_PORT), timeout=5):
                reached = True
        except OSError as e:
            reached, why = False, e
        check(f"daemon at {address}", not reached,
              f"the holder's MPJ daemon at {address}:{DAEMON_PORT} cannot be reached from the machine ({why if not reached else 'connected'})")
    took = subprocess.run(["salloc", "--partition=nodes", "--nodes=2", "--exclusive", "--immediate=5", "true"],
                          capture_output=True, text=True, timeout=60)
    check("nodes taken", took.returncode != 0, f"a second allocation of the nodes is refused: {took.stderr.strip()[:200]}")
    joined = subprocess.run(["srun", f"--jobid={job}", "--overlap", "--nodes=1", "--ntasks=1", "--nodelist=node0", "id"],
                            capture_output=True, text=True, timeout=60)
    check("step in her job", joined.returncode != 0 and "uid=" not in joined.stdout,
          f"a step in the holder's job {job} is refused: {(joined.stderr or joined.stdout).strip()[:200]}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["hold"]:
        hold()
    elif sys.argv[1:2] == ["attack"] and len(sys.argv) == 3:
        attack(sys.argv[2])
    else:
        sys.exit(__doc__)
    sys.exit(1 if failures else 0)
