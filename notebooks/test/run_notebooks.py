"""Executes lesson notebooks headless with the mpi2nccl kernel (Debian's nbclient) and fails on any error.

Exercise cells (tag "exercise", metadata mpi2nccl.exercise = NAME) are replaced by the reference answer in
notebooks/test/answers/<notebook>/<NAME>.java before running, and MPI2NCCL_STRICT_CHECKS=1 makes a check cell that
finds a wrong answer raise. Each notebook must also show at least one image (its plot). The executed notebooks
are written to --out.

    /usr/bin/python3 notebooks/test/run_notebooks.py --out build/notebooks notebooks/*.ipynb
"""
import argparse
import os
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

HERE = os.path.dirname(os.path.abspath(__file__))
ANSWERS = os.path.join(HERE, "answers")
KERNEL = "mpi2nccl-java"


def inject_answers(nb, stem):
    """Puts the reference answers into the exercise cells; returns the exercise names."""
    names = []
    for cell in nb.cells:
        if "exercise" not in cell.metadata.get("tags", []):
            continue
        name = cell.metadata.get("mpi2nccl", {}).get("exercise")
        if not name:
            raise SystemExit(f"{stem}: an exercise cell has no metadata mpi2nccl.exercise (its answer's name)")
        path = os.path.join(ANSWERS, stem, name + ".java")
        if not os.path.isfile(path):
            raise SystemExit(f"{stem}: no reference answer for exercise '{name}': add {path}")
        with open(path) as f:
            cell.source = f.read().rstrip("\n")
        names.append(name)
    answers_dir = os.path.join(ANSWERS, stem)
    if os.path.isdir(answers_dir):
        orphans = sorted(set(f[:-5] for f in os.listdir(answers_dir) if f.endswith(".java")) - set(names))
        if orphans:
            raise SystemExit(f"{stem}: answers without an exercise cell: {orphans}")
    return names


def images(nb):
    return sum(1 for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
               if "image/png" in o.get("data", {}) or "image/svg+xml" in o.get("data", {})
               or "<img" in str(o.get("data", {}).get("text/html", "")))


def run(path, out_dir, timeout):
    stem = os.path.splitext(os.path.basename(path))[0]
    nb = nbformat.read(path, as_version=4)
    exercises = inject_answers(nb, stem)
    client = NotebookClient(nb, kernel_name=KERNEL, timeout=timeout, allow_errors=False,
                            resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}})
    t0 = time.monotonic()
    try:
        client.execute()
    except CellExecutionError as e:
        print(f"FAIL {stem}: a cell raised an error\n{e}", file=sys.stderr)
        return False, time.monotonic() - t0
    finally:
        os.makedirs(out_dir, exist_ok=True)
        nbformat.write(nb, os.path.join(out_dir, stem + ".ipynb"))
    elapsed = time.monotonic() - t0
    problems = []
    if images(nb) == 0:
        problems.append("no plot (image) in its outputs")
    if not exercises:
        problems.append("no exercise cell")
    checks = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if "RIGHT: " in str(o.get("data", {}).get("text/plain", ""))]
    if exercises and not checks:
        problems.append("no check cell said RIGHT for the reference answers")
    if problems:
        print(f"FAIL {stem}: " + "; ".join(problems), file=sys.stderr)
        return False, elapsed
    print(f"ok   {stem}: {len(nb.cells)} cells, {len(exercises)} exercise(s), {images(nb)} image(s), {elapsed:.1f} s")
    return True, elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="folder for the executed notebooks")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    ap.add_argument("notebooks", nargs="+")
    a = ap.parse_args()
    os.environ["MPI2NCCL_STRICT_CHECKS"] = "1"
    t0 = time.monotonic()
    results = [run(p, a.out, a.timeout) for p in a.notebooks]
    print(f"{sum(ok for ok, _ in results)}/{len(results)} notebooks ran clean in {time.monotonic() - t0:.1f} s")
    sys.exit(0 if all(ok for ok, _ in results) else 1)


if __name__ == "__main__":
    main()
