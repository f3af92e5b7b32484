"""Writes a class of student notebooks for lesson 01, one of each kind a grader meets, into
toolkit/src/test/resources/org/mpi2nccl/grade/class01/ (GraderTest grades them and checks the gradebook):

    right      the reference answer
    wrong      this rank's own mean instead of the global one
    crashing   an answer that throws (a null array)
    exits      the %%mpj line removed and the kernel's JVM killed from inside (kill -9 of its own pid: the kernel
               refuses System.exit and Runtime.exit/halt, not a signal)
    endless    prints in a loop for ever
    tampered   the blank answer, with the check cell edited to print a RIGHT of its own and other cells deleted
    deleted    the exercise cell deleted
    invalid    a file cut off half-way (not JSON)

and, beside the folder, lesson01-short.ipynb: the lesson source cut to the cells the exercise needs (start the
ranks, their data, the exercise, its check, stop), so that grading the class in CI takes seconds per student.

Each starts from the student version that scripts/lessons/versions.py makes, as a student receives it.

    /usr/bin/python3 notebooks/test/make_grading_class.py
"""
import copy
import os
import sys

import nbformat

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lessons"))
import versions  # noqa: E402

LESSON = os.path.join(ROOT, "notebooks", "01-mpi-basics.ipynb")
OUT = os.path.join(ROOT, "toolkit", "src", "test", "resources", "org", "mpi2nccl", "grade", "class01")


def exercise_index(nb):
    return next(i for i, c in enumerate(nb.cells) if "exercise" in c.metadata.get("tags", []))


def check_index(nb):
    return next(i for i, c in enumerate(nb.cells) if "check" in c.metadata.get("tags", []))


def with_answer(student, body, mpj=True):
    nb = copy.deepcopy(student)
    nb.cells[exercise_index(nb)].source = ("%%mpj\n" if mpj else "") + body
    return nb


def main():
    source = nbformat.read(LESSON, as_version=4)
    student, instructor = versions.versions(source, "01-mpi-basics")
    answer = instructor.cells[exercise_index(instructor)].source
    assert answer.startswith("%%mpj\n")
    kinds = {
        "right": with_answer(student, answer[len("%%mpj\n"):]),
        "wrong": with_answer(student, "double globalMean = Arrays.stream(local).average().orElse(Double.NaN);"),
        "crashing": with_answer(student, "double[] totals = null;\ndouble globalMean = totals[0] / totals[1];"),
        "exits": with_answer(student, "new ProcessBuilder(\"kill\", \"-9\", String.valueOf(ProcessHandle.current().pid())).start().waitFor();", mpj=False),
        "endless": with_answer(student, "double globalMean = 0;\nwhile (true) System.out.println(\"still summing\");"),
    }
    tampered = copy.deepcopy(student)
    tampered.cells[check_index(tampered)].source = "%%mpj\nSystem.out.println(\"RIGHT: rank \" + rank + \": all good\");"
    tampered.cells = [c for c in tampered.cells if c.cell_type == "code"]
    kinds["tampered"] = tampered
    deleted = copy.deepcopy(student)
    del deleted.cells[exercise_index(deleted)]
    kinds["deleted"] = deleted
    os.makedirs(OUT, exist_ok=True)
    short = copy.deepcopy(source)
    needed = ("%mpj start", "double[] local =", "%mpj stop")
    short.cells = [c for c in short.cells if c.cell_type == "code" and (
        any(n in c.source for n in needed) or {"exercise", "check"} & set(c.metadata.get("tags", [])))]
    assert len(short.cells) == 5, [c.source[:40] for c in short.cells]
    nbformat.write(short, os.path.join(os.path.dirname(OUT), "lesson01-short.ipynb"))
    for name, nb in kinds.items():
        nbformat.validate(nb)
        nbformat.write(nb, os.path.join(OUT, name + ".ipynb"))
    text = nbformat.writes(kinds["right"])
    with open(os.path.join(OUT, "invalid.ipynb"), "w") as f:
        f.write(text[: len(text) // 2])
    print(f"{len(kinds) + 1} notebooks in {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
