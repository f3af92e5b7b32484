package org.mpi2nccl.cli;

import org.mpi2nccl.grade.Grader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code mpi2nccl grade --source notebooks/01-mpi-basics.ipynb --submissions DIR --out DIR}: every student's
 * exercise cells run with the instructor's own cells, checks included, in a fresh kernel JVM per student; the
 * gradebook (CSV and HTML) goes to --out. Exit status 0 when the gradebook was written, whatever the grades; 1 when
 * not one notebook ran (the grader's own failure, which would otherwise give every student 0).
 */
@Command(name = "grade", mixinStandardHelpOptions = true,
        description = {"Grade a class's notebooks: each student's exercise cells run with the lesson source's own "
                + "cells and checks, in a fresh kernel JVM per student, with time limits.",
                "Writes gradebook.csv, gradebook.html and each student's executed notebook into --out; a lesson with"
                + " write-ups also keeps their marks, typed by hand, in --marks."})
public final class GradeCommand implements Callable<Integer> {
    @Option(names = "--source", required = true, paramLabel = "NOTEBOOK",
            description = "the lesson source with the reference answers and the check cells (notebooks/NN-*.ipynb)")
    Path source;

    @Option(names = "--submissions", required = true, paramLabel = "DIR", description = "the students' .ipynb files")
    Path submissions;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "where the gradebook goes")
    Path out;

    @Option(names = "--marks", paramLabel = "CSV", description = {"the instructor's marks of the lesson's write-ups"
            + " (student,writeup,words,mark); default marks.csv in --out.", "Each run adds a row with an empty mark for"
            + " every student and write-up it grades and keeps every mark already there; the gradebook shows them"})
    Path marks;

    @Option(names = "--cell-timeout", paramLabel = "SECONDS", defaultValue = "120",
            description = "time limit of each cell (default ${DEFAULT-VALUE} s)")
    int cellTimeout;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "600",
            description = "time limit of each student's whole notebook (default ${DEFAULT-VALUE} s)")
    int studentTimeout;

    @Option(names = "--heap-mb", paramLabel = "MIB", defaultValue = "" + Grader.DEFAULT_HEAP_MIB,
            description = "Java heap of each JVM of a student's run, the kernel and each rank engine (default ${DEFAULT-VALUE} MiB)")
    int heapMib;

    @Option(names = "--max-processes", paramLabel = "N", defaultValue = "" + Grader.DEFAULT_PROCESSES,
            description = "processes a student's run may have at once; more (a fork bomb) ends the run (default ${DEFAULT-VALUE})")
    int processes;

    @Option(names = "--no-sandbox", description = {"run the students' code with your own rights, seeing all you see (only"
            + " where no submission can harm anyone).", "By default each student runs in a bubblewrap sandbox: the toolkit"
            + " read-only, one folder of its own, no network, its processes ended with its run"})
    boolean noSandbox;

    @Override
    public Integer call() throws Exception {
        if (cellTimeout < 1 || studentTimeout < 1) {
            throw new IllegalArgumentException("--cell-timeout and --timeout take a number of seconds, 1 or more");
        }
        if (heapMib < 64) {
            throw new IllegalArgumentException("--heap-mb takes MiB, 64 or more (a lesson's kernel needs a few hundred)");
        }
        if (processes < 8) {
            throw new IllegalArgumentException("--max-processes takes 8 or more (a run has its kernel, rank engines and MPJ's daemon)");
        }
        Grader grader = new Grader(source, new Grader.Limits(Duration.ofSeconds(cellTimeout),
                Duration.ofSeconds(studentTimeout), heapMib, processes), System.out, !noSandbox).marks(marks);
        var results = grader.gradeAll(submissions, out);
        System.out.println("graded " + results.size() + " notebook(s): " + out.resolve("gradebook.html") + ", "
                + out.resolve("gradebook.csv") + (grader.writeups().isEmpty() ? ""
                : "; marks of the write-ups: " + grader.marksFile(out)));
        String failure = Grader.toolFailure(results);
        if (!failure.isEmpty()) {
            System.err.println("grade: " + failure + " (" + out.resolve("logs") + ")");
            return 1;
        }
        return 0;
    }
}
