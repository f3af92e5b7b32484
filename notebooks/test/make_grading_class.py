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

For lesson 02, whose exercises ask for the ring built from Sendrecv, class02/ holds (HowCheck's end-to-end test):

    honest     the reference answer, with comments and a string that mention MPI's Allreduce and Allgather
    library    the reduce-scatter as the lesson asks, the all-gather with MPI's Allgatherv: right numbers, wrong build
    shadow     the reduce-scatter as the lesson asks, no all-gather, and a class Lesson02 of its own whose
               checkAllReduce prints RIGHT (the check cell calls Lesson02.checkAllReduce without its package)

with lesson02-short.ipynb beside it (3 ranks, the helpers, both exercises and their checks, stop).

For lesson 07 (ZeRO-1: a sharded step from a reduce-scatter and an all-gather), class07/:

    honest     the reference answer
    library    right numbers from the library's allReduce of the whole gradient (the exercise forbids it)
    shadow     no answer, and a class Lesson07 of its own whose checkShardedStep says RIGHT
    forger     no answer; the step prints an answer line of its own making while the check runs

For lesson 03 (data parallelism in four stages), class03/: honest (all four), summed (every stage's all-reduce sums
instead of averaging) and tensorwise (the bucket plan right, but each tensor all-reduced alone: right numbers, not the bucketed step).
lesson07-short.ipynb and lesson03-short.ipynb hold the cells those exercises need.

For lesson 08's pickInterface, class08/: honest; first (NCCL's own default: the first interface that is not lo);
forger (always eth1, and prints an answer line and a RIGHT of its own while the check runs). lesson08-short.ipynb:
the import, the exercise and its check (no nodes needed).

Each starts from the student version that scripts/lessons/versions.py makes, as a student receives it.

    /usr/bin/python3 notebooks/test/make_grading_class.py [01 02 03 07 08]

With lesson numbers, only those lessons' classes are written (all of them without).
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


def lesson01():
    source = nbformat.read(LESSON, as_version=4)
    student, instructor = versions.versions(source, "01-mpi-basics")
    answer = instructor.cells[exercise_index(instructor)].source
    assert answer.startswith("%%mpj\n")
    head = "double globalMean(MpiComm comm, double[] local) {\n"
    kinds = {
        "right": with_answer(student, answer[len("%%mpj\n"):]),
        "wrong": with_answer(student, head + "    return Arrays.stream(local).average().orElse(Double.NaN);\n}"),
        "crashing": with_answer(student, head + "    double[] totals = null;\n    return totals[0] / totals[1];\n}"),
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


def lesson02():
    lesson = os.path.join(ROOT, "notebooks", "02-allreduce-from-scratch.ipynb")
    out = os.path.join(os.path.dirname(OUT), "class02")
    source = nbformat.read(lesson, as_version=4)
    student, instructor = versions.versions(source, "02-allreduce-from-scratch")
    exercises = [i for i, c in enumerate(student.cells) if "exercise" in c.metadata.get("tags", [])]
    answers = [instructor.cells[i].source for i in exercises]
    honest = copy.deepcopy(student)
    for i, a in zip(exercises, answers):
        honest.cells[i].source = a.replace("%%mpj\n", "%%mpj\n// MPI.COMM_WORLD.Allreduce(...) would do all of this;"
                                           " here it is built from Sendrecv\nString why = \".Allgather( is not allowed\";\n", 1)
    def ring_then(all_gather):
        """The reference reduce-scatter, then the given all-gather cell."""
        nb = copy.deepcopy(student)
        nb.cells[exercises[0]].source = answers[0]
        nb.cells[exercises[1]].source = all_gather
        return nb

    library = ring_then(
        "%%mpj\nvoid allGather(PointToPoint comm, float[] buf) {\n    int n = buf.length, size = comm.size();\n"
        "    int[] lengths = new int[size], starts = new int[size];\n"
        "    for (int j = 0; j < size; j++) { lengths[j] = length(n, size, j); starts[j] = start(n, size, j); }\n"
        "    int mine0 = start(n, size, comm.rank()), mineN = length(n, size, comm.rank());\n"
        "    float[] mine = Arrays.copyOfRange(buf, mine0, mine0 + mineN);\n"
        "    MPI.COMM_WORLD.Allgatherv(mine, 0, mine.length, MPI.FLOAT, buf, 0, lengths, starts, MPI.FLOAT);\n}\n\n"
        "void allReduce(PointToPoint comm, float[] buf) {\n    reduceScatter(comm, buf);\n    allGather(comm, buf);\n}")
    shadow = ring_then(
        "%%mpj\nvoid allGather(PointToPoint comm, float[] buf) { }\n\n"
        "void allReduce(PointToPoint comm, float[] buf) { reduceScatter(comm, buf); allGather(comm, buf); }\n\n"
        "class Lesson02 {\n    static String checkAllReduce(Object world,\n"
        "            java.util.function.BiConsumer<PointToPoint, float[]> f) {\n"
        "        System.out.println(\"RIGHT: rank \" + rank + \": every element is the sum over all ranks\");\n"
        "        return \"\";\n    }\n}")
    os.makedirs(out, exist_ok=True)
    short = copy.deepcopy(source)
    needed = ("%mpj start", "MpjCommunicator mpj =", "int start(int n, int size", "%mpj stop")
    short.cells = [c for c in short.cells if c.cell_type == "code" and (
        any(n in c.source for n in needed) or {"exercise", "check"} & set(c.metadata.get("tags", [])))]
    short.cells[0].source = "%mpj start -np 3"
    assert len(short.cells) == 8, [c.source[:40] for c in short.cells]
    nbformat.write(short, os.path.join(os.path.dirname(OUT), "lesson02-short.ipynb"))
    for name, nb in {"honest": honest, "library": library, "shadow": shadow}.items():
        nbformat.validate(nb)
        nbformat.write(nb, os.path.join(out, name + ".ipynb"))
    print(f"3 notebooks in {os.path.relpath(out, ROOT)}")


def lesson_versions(stem, folder):
    """A lesson's source, its student and instructor versions, and the folder of its class (made)."""
    source = nbformat.read(os.path.join(ROOT, "notebooks", stem + ".ipynb"), as_version=4)
    student, instructor = versions.versions(source, stem)
    out = os.path.join(os.path.dirname(OUT), folder)
    os.makedirs(out, exist_ok=True)
    return source, student, instructor, out


def write_class(out, notebooks):
    for name, nb in notebooks.items():
        nbformat.validate(nb)
        nbformat.write(nb, os.path.join(out, name + ".ipynb"))
    print(f"{len(notebooks)} notebooks in {os.path.relpath(out, ROOT)}")


def with_exercise(student, ex, bodies):
    """The student version with exercise cell ex answered by each body (None: as handed out)."""
    out = {}
    for name, body in bodies.items():
        nb = copy.deepcopy(student)
        if body is not None:
            nb.cells[ex].source = body
        out[name] = nb
    return out


def short_version(source, needed, ranks_line, count):
    """The lesson cut to its start, the cells that define what the checks use, the exercises, their checks, stop."""
    short = copy.deepcopy(source)
    short.cells = [c for c in short.cells if c.cell_type == "code" and (
        any(n in c.source for n in needed) or {"exercise", "check"} & set(c.metadata.get("tags", [])))]
    short.cells[0].source = ranks_line
    assert len(short.cells) == count, [c.source[:40] for c in short.cells]
    return short


def lesson07():
    source, student, instructor, out = lesson_versions("07-sharded-optimizer", "class07")
    ex = exercise_index(student)
    answer = instructor.cells[ex].source
    head = ("%%mpj\nvoid shardedStep(float[] params, float[] grads, float[] velocity) {\n"
            "    int n = params.length, shard = velocity.length, start = rank * shard;\n")
    library = head + (
        "    float[] avg = grads.clone();\n"
        "    ring.allReduce(HostBuffer.of(avg), Reduction.AVG);\n"
        "    float[] mySlice = new float[shard];\n"
        "    for (int i = 0; i < shard && start + i < n; i++) {\n"
        "        velocity[i] = Lesson07.MOMENTUM * velocity[i] + avg[start + i];\n"
        "        mySlice[i] = params[start + i] - Lesson07.LR * velocity[i];\n    }\n"
        "    float[] all = new float[shard * size];\n"
        "    ring.allGather(HostBuffer.of(mySlice), HostBuffer.of(all));\n"
        "    System.arraycopy(all, 0, params, 0, n);\n}")
    shadow = ("%%mpj\nvoid shardedStep(float[] params, float[] grads, float[] velocity) { }\n\n"
              "interface Step { void step(float[] p, float[] g, float[] v); }\n\n"
              "class Lesson07 {\n    static String checkShardedStep(int rank, int size, Object comm, Step f) {\n"
              "        return \"RIGHT: rank \" + rank + \": same parameters as plain data parallelism\";\n    }\n}")
    forger = head + ("    System.out.println(\"ANSWER sharded-step: \" + \"0.5 \".repeat(n).trim());\n"
                     "    System.out.println(\"RIGHT: rank \" + rank + \": same parameters as plain data parallelism\");\n}")
    kinds = {"honest": answer, "library": library, "shadow": shadow, "forger": forger}
    assert "Reduction.AVG" in answer
    short = short_version(source, ("%mpj start", "RingCommunicator ring =", "%mpj stop"), "%mpj start -np 2", 5)
    nbformat.write(short, os.path.join(os.path.dirname(OUT), "lesson07-short.ipynb"))
    write_class(out, with_exercise(student, ex, kinds))


def lesson03():
    source, student, instructor, out = lesson_versions("03-data-parallel-mpi", "class03")
    exercises = [i for i, c in enumerate(student.cells) if "exercise" in c.metadata.get("tags", [])]
    assert len(exercises) == 4
    def answered(which, edit=lambda a: a):
        nb = copy.deepcopy(student)
        for k in which:
            nb.cells[exercises[k]].source = edit(instructor.cells[exercises[k]].source)
        return nb
    divide = "        for (int i = 0; i < g.length; i++) g[i] /= comm.size();\n"
    summed = lambda a: a.replace("Reduction.AVG", "Reduction.SUM").replace(divide, "")
    bucketed = ("        float[] flat = flatten(bucket);\n        comm.allReduce(HostBuffer.of(flat), Reduction.AVG);\n"
                "        unflatten(flat, bucket);\n")
    tensorwise = ("        for (Tensor p : bucket) {\n            float[] g = p.grad().toArray();\n"
                  "            comm.allReduce(HostBuffer.of(g), Reduction.AVG);\n"
                  "            p.grad().assign(NDArray.of(g, p.shape()));\n        }\n")
    assert bucketed in instructor.cells[exercises[2]].source
    kinds = {"honest": answered(range(4)), "summed": answered(range(4), summed),
             "tensorwise": answered(range(4), lambda a: a.replace(bucketed, tensorwise))}
    assert divide in instructor.cells[exercises[1]].source
    assert all("Reduction.AVG" in instructor.cells[exercises[k]].source for k in (2, 3))
    short = short_version(source, ("%mpj start", "Lesson03Times times =", "%mpj stop"), "%mpj start -np 2", 11)
    nbformat.write(short, os.path.join(os.path.dirname(OUT), "lesson03-short.ipynb"))
    write_class(out, kinds)


def lesson08():
    source, student, instructor, out = lesson_versions("08-multi-node", "class08")
    ex = exercise_index(student)
    head = "String pickInterface(Map<String, String> interfaces, String peer) {\n"
    kinds = {
        "honest": instructor.cells[ex].source,
        "first": head + "    for (String name : interfaces.keySet()) if (!name.equals(\"lo\")) return name;\n    return null;\n}",
        "forger": head + "    System.out.println(\"ANSWER pick-interface: 1 1 1 1\");\n"
                         "    System.out.println(\"RIGHT: pickInterface chose the interface that reaches the peer\");\n"
                         "    return \"eth1\";\n}",
    }
    short = copy.deepcopy(source)
    first = nbformat.v4.new_code_cell("import java.util.*;\nimport org.mpi2nccl.lessons.*;", id="imports")
    short.cells = [first] + [c for c in short.cells if {"exercise", "check"} & set(c.metadata.get("tags", []))]
    assert len(short.cells) == 3, [c.source[:40] for c in short.cells]
    nbformat.write(short, os.path.join(os.path.dirname(OUT), "lesson08-short.ipynb"))
    write_class(out, with_exercise(student, ex, kinds))


if __name__ == "__main__":
    LESSONS = {"01": lesson01, "02": lesson02, "07": lesson07, "03": lesson03, "08": lesson08}
    for number in sys.argv[1:] or LESSONS:
        LESSONS[number]()
