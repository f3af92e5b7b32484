"""Executes every lesson twice, as run_notebooks.py does, but with `mpi2nccl execute` (the toolkit's own notebook
runner: the kernel in one JVM, no Jupyter) instead of nbclient, and applies the same rules: the instructor version
with MPI2NCCL_STRICT_CHECKS=1 must run clean with every check saying RIGHT and a plot shown; the student version
must run to the end with every check printing NOT YET.

With --compare DIR (the --out folder of run_notebooks.py), the two runners must also agree: each check cell of
each version gives the same verdicts (RIGHT / NOT YET, rank by rank) under both.

    /usr/bin/python3 notebooks/test/run_executed.py --out build/notebooks-executed --compare build/notebooks notebooks/*.ipynb
"""
import os
import re
import subprocess
import sys
import tempfile

import nbformat

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import run_notebooks  # noqa: E402  (the rules and the report stay there)

TARGET = os.path.join(ROOT, "toolkit", "target")
# as scripts/lib.sh starts the toolkit's command line
JAVA = ["java", "--enable-native-access=ALL-UNNAMED", "-cp",
        os.path.join(TARGET, "mpi2nccl-toolkit.jar") + os.pathsep + os.path.join(TARGET, "lib", "*"),
        "org.mpi2nccl.cli.Main", "execute"]
VERDICT = re.compile(r"^(\[rank \d+\] )?(RIGHT|NOT YET): ", re.M)
compare_dir = None
disagreements = []


def verdicts(nb):
    """Per check cell, its verdict lines in order, e.g. ['[rank 0] RIGHT', '[rank 1] RIGHT']."""
    return [[(m.group(1) or "") + m.group(2) for m in VERDICT.finditer(text)]
            for text in run_notebooks.check_outputs(nb)]


def execute(nb, stem, kind, out_dir, timeout, cwd, strict):
    """run_notebooks.execute with `mpi2nccl execute`: the notebook's cells get the outputs, in place."""
    env = dict(os.environ, MPI2NCCL_STRICT_CHECKS="1" if strict else "0",
               OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"))
    os.makedirs(os.path.join(out_dir, kind), exist_ok=True)
    target = os.path.join(out_dir, kind, stem + ".ipynb")
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, stem + ".ipynb")
        nbformat.write(nb, source)
        done = subprocess.run(JAVA + ["--timeout", str(timeout), "--output", target, source], cwd=cwd, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if not os.path.exists(target):
        return f"mpi2nccl execute wrote no notebook (exit {done.returncode})\n{done.stdout}"
    executed = nbformat.read(target, as_version=4)
    nbformat.validate(executed)
    nb.cells[:] = executed.cells
    if compare_dir:
        other = os.path.join(compare_dir, kind, stem + ".ipynb")
        if os.path.exists(other):
            mine, theirs = verdicts(executed), verdicts(nbformat.read(other, as_version=4))
            if mine != theirs:
                disagreements.append(f"{stem} ({kind}): mpi2nccl execute says {mine}, nbclient says {theirs}")
    return None if done.returncode == 0 else f"a cell raised an error (exit {done.returncode})\n{done.stdout}"


def main():
    global compare_dir
    if "--compare" in sys.argv:
        i = sys.argv.index("--compare")
        compare_dir = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    run_notebooks.execute = execute
    try:
        run_notebooks.main()
    except SystemExit as e:
        code = e.code
    else:
        code = 0
    for d in disagreements:
        print("DISAGREE " + d, file=sys.stderr)
    sys.exit(1 if code or disagreements else 0)


if __name__ == "__main__":
    main()
