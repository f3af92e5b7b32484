"""Run as a student of the lab: a kernel of the lab's kernelspec (mpi2nccl-java, as the hub starts it) with rank
engines over niodev (a JVM per rank, an MPJ daemon and starter), held until standard input closes. Prints
"ready KERNEL_PID CONNECTION_FILE" once the engines run. The victim of notebooks/test/lab/attacks.py."""
import sys

from jupyter_client.manager import KernelManager

km = KernelManager(kernel_name="mpi2nccl-java")
km.start_kernel()
try:
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)
    msg = kc.execute("%mpj start -np 2 --device niodev")
    reply = kc.get_shell_msg(timeout=180)
    if reply["content"]["status"] != "ok":
        print(f"failed: {reply['content']}", flush=True)
        sys.exit(1)
    print(f"ready {km.provisioner.process.pid} {km.connection_file}", flush=True)
    sys.stdin.read()
finally:
    km.shutdown_kernel(now=True)
