"""Lessons opened outside the repository, as students open them.

* `./build.sh notebook`'s workspace (scripts/notebook.sh with MPI2NCCL_NOTEBOOK_NO_SERVER=1: no server): every
  student lesson is copied into an empty folder; run again, a lesson the student edited is kept as it is (main).
* Lesson 04 copied alone into an empty folder outside the repository (run_lessons.py runs its instructor version
  there) must, without a GPU, show the bandwidth chart recorded on the GPU machine from the toolkit's copy, with
  where it was recorded, and never say the results are missing (lesson_04_problems).

    /usr/bin/python3 notebooks/test/outside_repo.py      (the workspace; scripts/test.sh runs it)
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile


HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))


def fail(msg):
    print(f"FAIL outside the repository: {msg}", file=sys.stderr)
    sys.exit(1)


def text(cell):
    return "\n".join(str(o.get("text", "")) + str(o.get("data", {}).get("text/plain", "")) for o in cell.get("outputs", []))


def has_image(cell):
    return any("image/png" in o.get("data", {}) or "image/svg+xml" in o.get("data", {}) for o in cell.get("outputs", []))


def workspace(tmp):
    ws = os.path.join(tmp, "workspace")
    env = dict(os.environ, NOTEBOOK_DIR=ws, MPI2NCCL_NOTEBOOK_NO_SERVER="1")
    first = subprocess.run(["bash", os.path.join(ROOT, "scripts", "notebook.sh")], env=env, capture_output=True, text=True)
    if first.returncode:
        fail(f"scripts/notebook.sh failed:\n{first.stdout}{first.stderr}")
    lessons = sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))
    if sorted(os.listdir(ws)) != lessons + ["figures"]:
        fail(f"the workspace holds {sorted(os.listdir(ws))}, expected every lesson {lessons} and figures/")
    figures = sorted(os.listdir(os.path.join(ROOT, "notebooks", "figures")))
    if sorted(os.listdir(os.path.join(ws, "figures"))) != figures:
        fail(f"the workspace's figures/ holds {sorted(os.listdir(os.path.join(ws, 'figures')))}, expected {figures}:"
             " the lessons' markdown would show broken pictures")
    for name in lessons:
        if "// BEGIN SOLUTION" in open(os.path.join(ws, name)).read():
            fail(f"{name} in the workspace holds the reference answer: not the student version")
        if os.stat(os.path.join(ws, name)).st_mode & 0o077:
            fail(f"{name} in the workspace is readable by other users: {oct(os.stat(os.path.join(ws, name)).st_mode)}")
    if os.stat(ws).st_mode & 0o777 != 0o700:
        fail(f"the workspace {ws} is open to other users: {oct(os.stat(ws).st_mode & 0o777)}, not 0o700")
    edited = os.path.join(ws, lessons[1])
    with open(edited, "a") as f:
        f.write(" ")  # the student's edit (still valid JSON)
    mine = open(edited).read()
    os.remove(os.path.join(ws, lessons[0]))
    again = subprocess.run(["bash", os.path.join(ROOT, "scripts", "notebook.sh")], env=env, capture_output=True, text=True)
    if again.returncode or open(edited).read() != mine:
        fail(f"a second run overwrote the student's {lessons[1]}:\n{again.stdout}{again.stderr}")
    said = {line.split(":")[0].strip(): line for line in again.stdout.splitlines() if ":" in line}
    if lessons[0] not in said.get("copied", "") or lessons[1] not in said.get("kept as they are (your edits; delete one to get it fresh)", ""):
        fail(f"a second run should copy {lessons[0]} again and say it kept {lessons[1]}:\n{again.stdout}")
    os.chmod(ws, 0o755)  # a workspace made open by hand, or by an older toolkit
    third = subprocess.run(["bash", os.path.join(ROOT, "scripts", "notebook.sh")], env=env, capture_output=True, text=True)
    if third.returncode or os.stat(ws).st_mode & 0o777 != 0o700 or "made " + ws + " private" not in third.stdout:
        fail(f"an open workspace was not made private again ({oct(os.stat(ws).st_mode & 0o777)}):\n{third.stdout}{third.stderr}")
    print(f"ok   workspace: {len(lessons)} student lessons and their figures copied, private to their user (0700, files"
          " 0600); a second run"
          " kept the edited one and restored the deleted one; an open workspace is made private again")


def lesson_04_problems(nb):
    """What is wrong with lesson 04 as it ran from a folder outside the repository (run_lessons.py runs it so)."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    everything = "\n".join(text(c) for c in code)
    problems = [f"says '{wrong}' outside the repository" for wrong in ("not in this checkout", "No recorded")
                if wrong in everything]
    if "no GPU:" not in everything:
        return problems  # a GPU is here: the live sweep ran, the recorded results are not shown
    sweep = [c for c in code if "Lesson04.recorded()" in c.source]
    if not sweep or not has_image(sweep[0]):
        return problems + ["no recorded bandwidth chart in the cell that calls Lesson04.recorded()"]
    said = text(sweep[0])
    if "RECORDED on 2x NVIDIA H200" not in said or "the toolkit's copy" not in said:
        problems.append(f"the recorded chart does not say where it was recorded and read from:\n{said}")
    if "NCCL INIT rank" not in everything:
        problems.append("the recorded ncclCommInitRank lines are missing")
    return problems


def main():
    tmp = tempfile.mkdtemp(prefix="mpi2nccl-outside-")
    if os.path.commonpath([tmp, ROOT]) == ROOT:
        fail(f"the temporary folder {tmp} is inside the repository")
    try:
        workspace(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
