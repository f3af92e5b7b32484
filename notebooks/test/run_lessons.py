"""Every lesson executed headless, each version once, half by each runner (notebooks/test/runners.py):

* even lessons (00, 02, ...): the instructor version through nbclient, the student version through `mpi2nccl execute`;
* odd lessons (01, 03, ...): the other way round.

So both runners run both kinds of version, and the rules of lesson_checks.py apply to every run. The two runs of a
lesson must print their verdicts in the same places (lesson_checks.shape). Two lessons run once more:

* AGREEMENT (01, a short lesson whose checks give a verdict per rank): each version runs through the other runner
  too, and the two runners must give the same verdicts, rank by rank;
* OUTSIDE (04): its instructor version runs from a copy in an empty folder outside the repository, as a student who
  downloaded one lesson runs it: without a GPU it must show the bandwidth recorded on GPUs from the toolkit's own copy
  (outside_repo.lesson_04_problems).

Two lessons run at a time (--jobs), the longest first: a lesson leaves a core idle while its kernel waits for its
rank engines, and two students on one machine is how the lessons are used anyway.

How long the measuring lessons run comes from MPI2NCCL_LESSON_LENGTH, set by --length (short: the fewest rounds and
steps that still run every cell; full: what a student runs). The executed notebooks go to OUT/instructor and
OUT/student (and OUT/agreement); the browser test renders them.

    /usr/bin/python3 notebooks/test/run_lessons.py --out build/lessons-run [--length short|full] notebooks/*.ipynb
"""
import argparse
import concurrent.futures
import copy
import multiprocessing
import os
import shutil
import sys
import tempfile
import time

import nbformat

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lessons"))
import versions  # noqa: E402  (scripts/lessons/versions.py)
import lesson_checks as checks  # noqa: E402
import outside_repo  # noqa: E402
from runners import RUNNERS  # noqa: E402

AGREEMENT = "01"
OUTSIDE = "04"
# The lessons that take longest (lesson 01 counts its second pair of runs), started first so that the last to end
# is a short one.
LONGEST_FIRST = ("08", "05", "01", "06", "03")


def start_order(paths):
    def rank(path):
        stem = os.path.basename(path)[:2]
        return LONGEST_FIRST.index(stem) if stem in LONGEST_FIRST else len(LONGEST_FIRST)
    return sorted(paths, key=rank)


def runners_for(stem):
    """(instructor's runner, student's runner) of a lesson, by the parity of its number."""
    return ("nbclient", "execute") if int(stem[:2]) % 2 == 0 else ("execute", "nbclient")


def run_version(nb, stem, kind, runner, folder, timeout, cwd):
    """Executes nb in place with runner, writes it to folder/stem.ipynb; (error or None, seconds)."""
    t0 = time.monotonic()
    error = RUNNERS[runner](nb, cwd, timeout, strict=kind == "instructor", name=stem)
    os.makedirs(folder, exist_ok=True)
    nbformat.write(nb, os.path.join(folder, stem + ".ipynb"))
    return error, time.monotonic() - t0


def agreement(stem, student, instructor, runs, out, timeout, cwd):
    """Each version again through the other runner: the verdicts must be the same."""
    problems = []
    for kind, fresh, (runner, first) in (("instructor", instructor, runs["instructor"]),
                                         ("student", student, runs["student"])):
        other = "execute" if runner == "nbclient" else "nbclient"
        nb = copy.deepcopy(fresh)
        error, _ = run_version(nb, f"{stem}-{kind}", kind, other, os.path.join(out, "agreement"), timeout, cwd)
        if error:
            problems.append(f"{kind} version again ({other}): {error}")
        elif checks.verdicts(nb) != checks.verdicts(first):
            problems.append(f"the runners disagree on the {kind} version: {other} says {checks.verdicts(nb)},"
                            f" {runner} says {checks.verdicts(first)}")
    return problems


def run(path, out, timeout):
    stem = os.path.splitext(os.path.basename(path))[0]
    cwd = os.path.dirname(os.path.abspath(path))
    source = nbformat.read(path, as_version=4)
    try:
        student, instructor = versions.versions(source, stem)
    except versions.MarkerError as e:
        print(f"FAIL {stem}: {e}", file=sys.stderr)
        return False
    fresh = (copy.deepcopy(student), copy.deepcopy(instructor)) if stem.startswith(AGREEMENT) else None
    exercises = versions.exercises(instructor) or versions.exercises(source)
    problems = [] if exercises else ["no exercise cell"]
    to_instructor, to_student = runners_for(stem)
    outside = tempfile.mkdtemp(prefix="mpi2nccl-outside-") if stem.startswith(OUTSIDE) else None
    try:
        if outside and os.path.commonpath([outside, ROOT]) == ROOT:
            problems.append(f"the temporary folder {outside} is inside the repository")
        error, t_instructor = run_version(instructor, stem, "instructor", to_instructor,
                                          os.path.join(out, "instructor"), timeout, outside or cwd)
    finally:
        if outside:
            shutil.rmtree(outside, ignore_errors=True)
    said = f"instructor version ({to_instructor}{', outside the repository' if outside else ''})"
    if error:
        problems.append(f"{said}: {error}")
    else:
        problems += [f"{said}: {p}" for p in checks.instructor_problems(instructor, exercises)]
        if outside:
            problems += [f"{said}: {p}" for p in outside_repo.lesson_04_problems(instructor)]
    error2, t_student = run_version(student, stem, "student", to_student, os.path.join(out, "student"), timeout, cwd)
    if error2:
        problems.append(f"student version ({to_student}): {error2}")
    else:
        problems += [f"student version ({to_student}): {p}" for p in checks.student_problems(student)]
    if not error and not error2 and checks.shape(instructor) != checks.shape(student):
        problems.append(f"the check cells give verdicts in other places: {checks.verdicts(instructor)} in the instructor"
                        f" version ({to_instructor}), {checks.verdicts(student)} in the student version ({to_student})")
    extra = ""
    if stem.startswith(AGREEMENT) and not error and not error2:
        t0 = time.monotonic()
        problems += agreement(stem, *fresh, {"instructor": (to_instructor, instructor), "student": (to_student, student)},
                              out, timeout, cwd)
        extra = f"; both versions again through the other runner, {time.monotonic() - t0:.1f} s"
    if problems:
        print(f"FAIL {stem}: " + "; ".join(problems), file=sys.stderr)
        return False
    print(f"ok   {stem}: {len(instructor.cells)} cells, {len(exercises)} exercise(s), {checks.images(instructor)} image(s);"
          f" instructor ({to_instructor}) {t_instructor:.1f} s, student ({to_student}) {t_student:.1f} s{extra}", flush=True)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="folder for the executed notebooks")
    ap.add_argument("--length", choices=["short", "full"], default="short",
                    help="how long the measuring lessons run (MPI2NCCL_LESSON_LENGTH; default short)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per cell")
    ap.add_argument("--jobs", type=int, default=2, help="lessons run at a time (default 2)")
    ap.add_argument("notebooks", nargs="+")
    a = ap.parse_args()
    if a.jobs < 1:
        ap.error(f"--jobs must be at least 1 (got {a.jobs})")
    os.environ["MPI2NCCL_LESSON_LENGTH"] = a.length
    t0 = time.monotonic()
    paths = start_order(a.notebooks)
    if a.jobs == 1 or len(paths) == 1:
        results = [run(p, a.out, a.timeout) for p in paths]
    else:
        # Processes, not threads: each runner drives its own kernel and event loop.
        with concurrent.futures.ProcessPoolExecutor(a.jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            results = list(pool.map(run, paths, [a.out] * len(paths), [a.timeout] * len(paths)))
    print(f"{sum(results)}/{len(results)} lesson(s) ran clean ({a.length} length) in {time.monotonic() - t0:.1f} s")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
