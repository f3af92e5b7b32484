"""Student and instructor notebooks from one lesson source.

A lesson's source (notebooks/NN-*.ipynb) holds the reference answers between marker lines, as nbgrader does:

    double globalMean = Double.NaN;
    // BEGIN SOLUTION
    double[] sumAndCount = {Arrays.stream(local).sum(), local.length}, totals = new double[2];
    ...
    // END SOLUTION

Lines of the form `//STUB code` inside a region are the student's starting point: `code` in the student version,
gone in the instructor version. A region becomes, for the student, `// YOUR CODE HERE` and its stub lines.
The markers are Java comments, so the source itself runs as the instructor version does.

A cell with a region is an exercise: it carries the tag "exercise" and metadata mpi2nccl.exercise = NAME. The cell
that checks it carries the tag "check". Markdown cells may hold a region too (an answer to a question): the student
sees "*Your answer here.*".

A write-up is such a markdown answer that the instructor marks by hand (`mpi2nccl grade` counts its words and
keeps the marks): the tag "writeup" and metadata mpi2nccl.writeup = NAME, and nothing but its region, so that every
word of the student's cell is theirs:

    <!-- BEGIN SOLUTION -->
    What a full answer says (the instructor's marking notes).
    <!-- END SOLUTION -->

The lessons' markdown shows pictures from figures/ beside them (notebooks/figures, drawn by the toolkit's
org.mpi2nccl.lessons.figures); that folder is copied beside both versions, so the links work where they are opened.

    /usr/bin/python3 scripts/lessons/versions.py --student OUT1 --instructor OUT2 notebooks/*.ipynb
"""
import argparse
import copy
import os
import re
import shutil
import sys

import nbformat

BEGIN = re.compile(r"^\s*(//|<!--)\s*BEGIN SOLUTION\b")
END = re.compile(r"^\s*(//|<!--)\s*END SOLUTION\b")
STUB = re.compile(r"^(\s*)//STUB ?(.*)$")


class MarkerError(ValueError):
    pass


def _lines(cell):
    return cell.source.split("\n")


def _split(cell, where):
    """The cell's lines as (kind, line) with kind 'text', 'solution' or 'stub'; checks that markers pair up."""
    out, inside = [], False
    for n, line in enumerate(_lines(cell), 1):
        if BEGIN.match(line):
            if inside:
                raise MarkerError(f"{where}, line {n}: BEGIN SOLUTION inside another region (close it with END SOLUTION)")
            inside = True
            out.append(("begin", line))
        elif END.match(line):
            if not inside:
                raise MarkerError(f"{where}, line {n}: END SOLUTION without a BEGIN SOLUTION above it")
            inside = False
            out.append(("end", line))
        elif inside:
            out.append(("stub" if STUB.match(line) else "solution", line))
        else:
            out.append(("text", line))
    if inside:
        raise MarkerError(f"{where}: BEGIN SOLUTION is never closed (add a line // END SOLUTION)")
    return out


def has_solution(cell):
    return any(BEGIN.match(l) for l in _lines(cell))


def instructor_cell(cell, where):
    kept = [line for kind, line in _split(cell, where) if kind in ("text", "solution")]
    return "\n".join(kept)


def student_cell(cell, where):
    out = []
    for kind, line in _split(cell, where):
        if kind == "text":
            out.append(line)
        elif kind == "begin":
            indent = re.match(r"^\s*", line).group(0)
            out.append(indent + ("*Your answer here.*" if cell.cell_type == "markdown" else "// YOUR CODE HERE"))
        elif kind == "stub":
            m = STUB.match(line)
            out.append(m.group(1) + m.group(2))
    return "\n".join(out)


def writeup_name(cell):
    return cell.metadata.get("mpi2nccl", {}).get("writeup") if cell.cell_type == "markdown" else None


def check_writeup(cell, where, seen):
    """A write-up cell is tagged, uniquely named, and holds its region alone (the student version: the placeholder)."""
    w = writeup_name(cell)
    if not w:
        return
    if "writeup" not in cell.metadata.get("tags", []):
        raise MarkerError(f"{where}: a write-up cell (metadata mpi2nccl.writeup) needs the tag 'writeup'")
    if w in seen:
        raise MarkerError(f"{where}: write-up name '{w}' is used twice")
    seen.add(w)
    outside = [line for kind, line in _split(cell, where) if kind == "text" and line.strip()]
    if not has_solution(cell) or outside:
        raise MarkerError(f"{where}: a write-up cell holds only <!-- BEGIN SOLUTION --> ... <!-- END SOLUTION -->"
                          " (put the question in the cell above), so that the student's cell is all their own words")


def versions(nb, name):
    """(student, instructor) copies of a source notebook, outputs cleared; exercise and write-up names checked."""
    student, instructor = copy.deepcopy(nb), copy.deepcopy(nb)
    seen, seen_writeups = set(), set()
    for i, cell in enumerate(nb.cells):
        where = f"{name}, cell {i + 1}"
        check_writeup(cell, where, seen_writeups)
        if has_solution(cell) and cell.cell_type == "code":
            ex = cell.metadata.get("mpi2nccl", {}).get("exercise")
            if not ex or "exercise" not in cell.metadata.get("tags", []):
                raise MarkerError(f"{where}: a cell with a solution needs the tag 'exercise' and metadata mpi2nccl.exercise = NAME")
            if ex in seen:
                raise MarkerError(f"{where}: exercise name '{ex}' is used twice")
            seen.add(ex)
        student.cells[i].source = student_cell(cell, where)
        instructor.cells[i].source = instructor_cell(cell, where)
        for c in (student.cells[i], instructor.cells[i]):
            if c.cell_type == "code":
                c.outputs, c.execution_count = [], None
    return student, instructor


def exercises(nb):
    return [c.metadata["mpi2nccl"]["exercise"] for c in nb.cells
            if c.cell_type == "code" and has_solution(c)]


def writeups(nb):
    return [writeup_name(c) for c in nb.cells if writeup_name(c)]


def main():
    ap = argparse.ArgumentParser(description="Student and instructor notebooks from the lesson sources.")
    ap.add_argument("--student", required=True, help="folder for the student notebooks (answers blanked)")
    ap.add_argument("--instructor", required=True, help="folder for the instructor notebooks (answers in)")
    ap.add_argument("notebooks", nargs="+")
    a = ap.parse_args()
    for folder in (a.student, a.instructor):
        os.makedirs(folder, exist_ok=True)
    try:
        for path in a.notebooks:
            name = os.path.basename(path)
            student, instructor = versions(nbformat.read(path, as_version=4), name)
            nbformat.validate(student)
            nbformat.write(student, os.path.join(a.student, name))
            nbformat.write(instructor, os.path.join(a.instructor, name))
            source = nbformat.read(path, as_version=4)
            marked = len(writeups(source))
            print(f"{name}: {len(exercises(source))} exercise(s)" + (f", {marked} write-up(s)" if marked else ""))
    except MarkerError as e:
        sys.exit(f"versions.py: {e}")
    for figures in sorted({os.path.join(os.path.dirname(os.path.abspath(p)), "figures") for p in a.notebooks}):
        if os.path.isdir(figures):
            for folder in (a.student, a.instructor):
                shutil.copytree(figures, os.path.join(folder, "figures"), dirs_exist_ok=True)


if __name__ == "__main__":
    main()
