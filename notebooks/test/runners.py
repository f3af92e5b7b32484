"""The two ways a lesson is executed headless, each filling a notebook's cells with their outputs in place:

* `nbclient`: Debian's nbclient drives the mpi2nccl kernel over the Jupyter protocol, as Jupyter Notebook does;
* `execute`: `mpi2nccl execute`, the toolkit's own runner (the kernel inside one JVM, no Jupyter), as on GPU nodes.

Each returns None when every cell ran, else the error. The environment of the run is this process's, plus
MPI2NCCL_STRICT_CHECKS (1: a check that finds a wrong answer raises).
"""
import os
import subprocess
import tempfile

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
KERNEL = "mpi2nccl-java"
TARGET = os.path.join(ROOT, "toolkit", "target")
# as scripts/lib.sh starts the toolkit's command line
EXECUTE = ["java", "--enable-native-access=ALL-UNNAMED", "-cp",
           os.path.join(TARGET, "mpi2nccl-toolkit.jar") + os.pathsep + os.path.join(TARGET, "lib", "*"),
           "org.mpi2nccl.cli.Main", "execute"]


def nbclient(nb, cwd, timeout, strict, name="lesson"):
    old = os.environ.get("MPI2NCCL_STRICT_CHECKS")
    os.environ["MPI2NCCL_STRICT_CHECKS"] = "1" if strict else "0"  # the kernel inherits this process's environment
    try:
        NotebookClient(nb, kernel_name=KERNEL, timeout=timeout, allow_errors=False,
                       resources={"metadata": {"path": cwd}}).execute()
        return None
    except CellExecutionError as e:
        return f"a cell raised an error\n{e}"
    finally:
        if old is None:
            del os.environ["MPI2NCCL_STRICT_CHECKS"]
        else:
            os.environ["MPI2NCCL_STRICT_CHECKS"] = old


def execute(nb, cwd, timeout, strict, name="lesson"):
    env = dict(os.environ, MPI2NCCL_STRICT_CHECKS="1" if strict else "0",
               OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"))
    with tempfile.TemporaryDirectory(prefix="mpi2nccl-execute-") as tmp:
        os.mkdir(os.path.join(tmp, "out"))
        source, target = os.path.join(tmp, name + ".ipynb"), os.path.join(tmp, "out", name + ".ipynb")
        nbformat.write(nb, source)
        done = subprocess.run(EXECUTE + ["--timeout", str(timeout), "--output", target, source], cwd=cwd, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if not os.path.exists(target):
            return f"mpi2nccl execute wrote no notebook (exit {done.returncode})\n{done.stdout}"
        executed = nbformat.read(target, as_version=4)
    nbformat.validate(executed)
    nb.cells[:] = executed.cells
    return None if done.returncode == 0 else f"a cell raised an error (exit {done.returncode})\n{done.stdout}"


RUNNERS = {"nbclient": nbclient, "execute": execute}
