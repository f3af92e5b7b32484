"""Every wrong answer of the table (wrong-answers.json) run through its lesson's own check, in the kernel.

Each row names a lesson, an exercise, what the wrong answer is, how it is made from the reference answer (literal
replacements in the exercise cell: the script stops if the reference no longer has the text), and the words its hint
must print. For each lesson with rows, the instructor version (answers in) runs once, with cells added after each
exercise's check: for every wrong answer, the wrong exercise cell and the check again; then the reference answer
and the check once more. The run must show:

* every wrong answer: NOT YET on every rank that checks, with each of its words (a hint names the first wrong place);
* the reference answer after the wrong ones: RIGHT on every rank, without a restart (a failing answer never poisons
  the next run);
* the lesson's own checks: RIGHT, as in the lessons' run.

    /usr/bin/python3 notebooks/test/wrong_answers.py --out build/wrong-answers [notebooks/NN-*.ipynb ...]
"""
import argparse
import copy
import json
import os
import sys

import nbformat

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts", "lessons"))
import versions  # noqa: E402  (scripts/lessons/versions.py)
from lesson_checks import VERDICT, cell_text  # noqa: E402
from runners import RUNNERS  # noqa: E402

TABLE = os.path.join(HERE, "wrong-answers.json")
MARK = "mpi2nccl-test"


def rows_of(stem):
    with open(TABLE, encoding="utf-8") as f:
        return [r for r in json.load(f) if r["lesson"] == stem[:2]]


def exercise_cell(nb, exercise):
    for i, c in enumerate(nb.cells):
        if c.cell_type == "code" and c.metadata.get("mpi2nccl", {}).get("exercise") == exercise:
            return i
    raise SystemExit(f"no exercise '{exercise}' in the lesson: fix {TABLE}")


def check_cells(nb, at):
    """The check cells that follow exercise cell `at`, up to the next exercise."""
    out = []
    for c in nb.cells[at + 1:]:
        if c.cell_type == "code" and "exercise" in c.metadata.get("tags", []):
            break
        if c.cell_type == "code" and "check" in c.metadata.get("tags", []):
            out.append(c)
    return out


def wrong_source(source, row):
    for old, new in row["replace"]:
        if old not in source:
            raise SystemExit(f"{row['lesson']} {row['exercise']} '{row['name']}': the reference answer has no {old!r}:"
                             f" fix {TABLE}")
        source = source.replace(old, new)
    return source


def marked(cell, what, n):
    c = copy.deepcopy(cell)
    c.metadata[MARK] = what
    c.id = f"{cell.get('id', 'cell')[:40]}-t{n}"           # ids stay unique
    c.outputs, c.execution_count = [], None
    if "tags" in c.metadata:
        c.metadata["tags"] = [t for t in c.metadata["tags"] if t != "check"]     # not a check of the lesson's own
    return c


def with_wrong_answers(nb, rows):
    """The notebook with each row's wrong answer and check, then the reference and check again, after each exercise."""
    out = copy.deepcopy(nb)
    for exercise in dict.fromkeys(r["exercise"] for r in rows):
        at = exercise_cell(out, exercise)
        checks = check_cells(out, at)
        last = out.cells.index(checks[-1]) if checks else at
        added = []
        for i, row in enumerate(r for r in rows if r["exercise"] == exercise):
            wrong = marked(out.cells[at], {"wrong": row["name"]}, len(added))
            wrong.source = wrong_source(out.cells[at].source, row)
            added += [wrong] + [marked(c, {"check-of": row["name"]}, len(added) + 1 + k) for k, c in enumerate(checks)]
        added += [marked(out.cells[at], {"again": exercise}, len(added))] + [
            marked(c, {"check-of": "again " + exercise}, len(added) + 1 + k) for k, c in enumerate(checks)]
        out.cells[last + 1:last + 1] = added
    return out


def problems(nb, rows):
    found = []
    by_name = {r["name"]: r for r in rows}
    for c in nb.cells:
        what = c.metadata.get(MARK, {}).get("check-of")
        if what is None:
            continue
        said = cell_text(c)
        verdicts = [m.group(2) for m in VERDICT.finditer(said)]
        if what.startswith("again "):
            if not verdicts or any(v != "RIGHT" for v in verdicts):
                found.append(f"{what}: the reference answer after the wrong ones did not say RIGHT everywhere:\n{said}")
            continue
        row = by_name[what]
        if not verdicts or any(v != "NOT YET" for v in verdicts):
            found.append(f"{row['exercise']} '{what}': not every rank said NOT YET:\n{said}")
        missing = [w for w in row["words"] if w not in said]
        if missing or not row["words"]:
            found.append(f"{row['exercise']} '{what}': the hint lacks {missing or 'words (the table gives none)'}:\n{said}")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--runner", choices=sorted(RUNNERS), default="execute")
    ap.add_argument("notebooks", nargs="*")
    a = ap.parse_args()
    with open(TABLE, encoding="utf-8") as f:
        lessons = sorted({r["lesson"] for r in json.load(f)})
    paths = a.notebooks or sorted(os.path.join(ROOT, "notebooks", n) for n in os.listdir(os.path.join(ROOT, "notebooks"))
                                  if n.endswith(".ipynb") and n[:2] in lessons)
    os.makedirs(a.out, exist_ok=True)
    failed = 0
    for path in paths:
        stem = os.path.basename(path)[:-len(".ipynb")]
        rows = rows_of(stem)
        if not rows:
            continue
        _, instructor = versions.versions(nbformat.read(path, as_version=4), stem)
        nb = with_wrong_answers(instructor, rows)
        error = RUNNERS[a.runner](nb, os.path.dirname(path), a.timeout, strict=False, name=stem)
        nbformat.write(nb, os.path.join(a.out, stem + ".ipynb"))
        found = ([error] if error else []) + problems(nb, rows)
        print(f"{stem}: {len(rows)} wrong answers, {'FAILED' if found else 'each told what is wrong, then the right one passed'}")
        for p in found:
            print("   " + p.replace("\n", "\n   "))
        failed += bool(found)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
