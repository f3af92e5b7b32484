"""What an executed lesson must show, whichever runner executed it.

* The instructor version (reference answers in, run with MPI2NCCL_STRICT_CHECKS=1, so a check that finds a wrong
  answer raises): every cell ran, every check cell (tag "check") says RIGHT, and the lesson shows a plot.
* The student version (answers blanked): every cell ran, every check cell prints its hint (NOT YET) instead of
  crashing, and every write-up cell (metadata mpi2nccl.writeup) shows the placeholder, not the marking notes.
* Two runs of one lesson print their verdicts in the same places: each check cell gives one verdict line per rank
  that checks, with the same rank labels, in the same order (`shape`); two runs of the same version give the same
  verdicts (`verdicts`).
"""
import re

VERDICT = re.compile(r"^(\[rank \d+\] )?(RIGHT|NOT YET): ", re.M)


def images(nb):
    return sum(1 for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
               if "image/png" in o.get("data", {}) or "image/svg+xml" in o.get("data", {})
               or "<img" in str(o.get("data", {}).get("text/html", "")))


def cell_text(cell):
    """The text a code cell printed: its streams and plain-text results."""
    return "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for o in cell.get("outputs", []))


def check_outputs(nb):
    """The text each check cell printed, one string per check cell."""
    return [cell_text(c) for c in nb.cells if c.cell_type == "code" and "check" in c.metadata.get("tags", [])]


def verdicts(nb):
    """Per check cell, its verdict lines in order, e.g. ['[rank 0] RIGHT', '[rank 1] RIGHT']."""
    return [[(m.group(1) or "") + m.group(2) for m in VERDICT.finditer(text)] for text in check_outputs(nb)]


def shape(nb):
    """Per check cell, who gave a verdict, in order: ['[rank 0] ', '[rank 1] '], or [''] for the kernel itself."""
    return [[(m.group(1) or "") for m in VERDICT.finditer(text)] for text in check_outputs(nb)]


def instructor_problems(nb, exercises):
    problems = []
    if images(nb) == 0:
        problems.append("no plot (image) in its outputs")
    checks = check_outputs(nb)
    if exercises and not checks:
        problems.append("no cell tagged 'check'")
    wrong = [i + 1 for i, text in enumerate(checks) if "RIGHT: " not in text]
    if wrong:
        problems.append(f"check cell(s) {wrong} did not say RIGHT")
    return problems


PLACEHOLDER = "*Your answer here.*"


def student_problems(nb):
    silent = [i + 1 for i, text in enumerate(check_outputs(nb)) if "NOT YET: " not in text]
    problems = [f"check cell(s) {silent} did not print a hint (NOT YET) for the blank answer"] if silent else []
    filled = [i + 1 for i, c in enumerate(nb.cells) if c.cell_type == "markdown"
              and c.metadata.get("mpi2nccl", {}).get("writeup") and c.source.strip() != PLACEHOLDER]
    if filled:
        problems.append(f"write-up cell(s) {filled} are not blank in the student version")
    return problems
