"""Executes every lesson twice, headless, with the mpi2nccl kernel (Debian's nbclient), from its source
(scripts/lessons/versions.py makes the two versions):

* the instructor version (reference answers in), with MPI2NCCL_STRICT_CHECKS=1: a check that finds a wrong answer
  raises, so every cell must run and every check cell (tag "check") must say RIGHT; each lesson shows a plot;
* the student version (answers blanked): every cell must still run, and every check cell must print its hint
  (NOT YET) instead of crashing.

The executed notebooks are written to --out/instructor and --out/student.

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
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "lessons"))
import versions  # noqa: E402  (scripts/lessons/versions.py)

KERNEL = "mpi2nccl-java"


def images(nb):
    return sum(1 for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
               if "image/png" in o.get("data", {}) or "image/svg+xml" in o.get("data", {})
               or "<img" in str(o.get("data", {}).get("text/html", "")))


def check_outputs(nb):
    """The text each check cell printed, one string per check cell."""
    return ["\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for o in c.get("outputs", []))
            for c in nb.cells if c.cell_type == "code" and "check" in c.metadata.get("tags", [])]


def execute(nb, stem, kind, out_dir, timeout, cwd, strict):
    os.environ["MPI2NCCL_STRICT_CHECKS"] = "1" if strict else "0"
    client = NotebookClient(nb, kernel_name=KERNEL, timeout=timeout, allow_errors=False,
                            resources={"metadata": {"path": cwd}})
    try:
        client.execute()
        return None
    except CellExecutionError as e:
        return f"a cell raised an error\n{e}"
    finally:
        os.makedirs(os.path.join(out_dir, kind), exist_ok=True)
        nbformat.write(nb, os.path.join(out_dir, kind, stem + ".ipynb"))


def run(path, out_dir, timeout):
    stem = os.path.splitext(os.path.basename(path))[0]
    cwd = os.path.dirname(os.path.abspath(path))
    try:
        student, instructor = versions.versions(nbformat.read(path, as_version=4), stem)
    except versions.MarkerError as e:
        print(f"FAIL {stem}: {e}", file=sys.stderr)
        return False, 0.0
    exercises = versions.exercises(instructor) or versions.exercises(nbformat.read(path, as_version=4))
    t0 = time.monotonic()
    problems = []
    error = execute(instructor, stem, "instructor", out_dir, timeout, cwd, strict=True)
    if error:
        problems.append("instructor version: " + error)
    else:
        if images(instructor) == 0:
            problems.append("no plot (image) in its outputs")
        checks = check_outputs(instructor)
        if exercises and not checks:
            problems.append("no cell tagged 'check'")
        wrong = [i + 1 for i, text in enumerate(checks) if "RIGHT: " not in text]
        if wrong:
            problems.append(f"instructor version: check cell(s) {wrong} did not say RIGHT")
    t1 = time.monotonic()
    error = execute(student, stem, "student", out_dir, timeout, cwd, strict=False)
    if error:
        problems.append("student version: " + error)
    else:
        silent = [i + 1 for i, text in enumerate(check_outputs(student)) if "NOT YET: " not in text]
        if silent:
            problems.append(f"student version: check cell(s) {silent} did not print a hint (NOT YET) for the blank answer")
    elapsed = time.monotonic() - t0
    if not exercises:
        problems.append("no exercise cell")
    if problems:
        print(f"FAIL {stem}: " + "; ".join(problems), file=sys.stderr)
        return False, elapsed
    print(f"ok   {stem}: {len(instructor.cells)} cells, {len(exercises)} exercise(s), {images(instructor)} image(s);"
          f" instructor {t1 - t0:.1f} s, student {elapsed - (t1 - t0):.1f} s")
    return True, elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="folder for the executed notebooks")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    ap.add_argument("notebooks", nargs="+")
    a = ap.parse_args()
    t0 = time.monotonic()
    results = [run(p, a.out, a.timeout) for p in a.notebooks]
    print(f"{sum(ok for ok, _ in results)}/{len(results)} notebooks ran clean in {time.monotonic() - t0:.1f} s")
    sys.exit(0 if all(ok for ok, _ in results) else 1)


if __name__ == "__main__":
    main()
