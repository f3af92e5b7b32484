package org.mpi2nccl.notebook;

import com.google.gson.JsonArray;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.mpi2nccl.kernel.jshell.ExitWatch;

/**
 * Runs a notebook's code cells in order, in a fresh {@link InProcessKernel}, and puts each cell's outputs,
 * execution count and timing (nbclient's {@code metadata.execution}) into it. Like nbclient it stops at the first
 * cell that raises, unless errors are allowed; a cell tagged {@code raises-exception} may raise, one tagged
 * {@code skip-execution} is not run. Each cell has a time limit, and the whole notebook another.
 *
 * <p>Outputs already in the file are cleared first: a cell that does not run shows nothing, never an old result.
 * With an output file, the notebook is written after every cell, so a run that is killed still leaves what ran.
 */
public final class NotebookExecutor {
    /** The settings of a run. */
    public record Options(Duration cellTimeout, Duration notebookTimeout, boolean allowErrors) {
        public Options {
            if (cellTimeout.isNegative() || cellTimeout.isZero() || notebookTimeout.isNegative() || notebookTimeout.isZero()) {
                throw new IllegalArgumentException("time limits must be positive (got " + cellTimeout + " per cell, "
                        + notebookTimeout + " per notebook)");
            }
        }
    }

    /** A cell that raised: its number among all cells (from 1), id, and the error's name and message. */
    public record CellFailure(int cell, String id, String name, String message) {
        @Override
        public String toString() {
            return "cell " + cell + " (id " + id + "): " + name + ": " + message;
        }
    }

    /** How a run went: the cells that raised, whether it stopped early and why, and how long it took. */
    public record Result(List<CellFailure> failures, int cellsRun, String stoppedBecause, Duration elapsed) {
        /** No cell raised (except where allowed by a tag) and every cell ran. */
        public boolean clean() {
            return failures.isEmpty() && stoppedBecause == null;
        }
    }

    private final Options options;
    private final PrintStream log;

    /** {@code log}: a line per cell that fails, and the kernel's own messages. */
    public NotebookExecutor(Options options, PrintStream log) {
        this.options = options;
        this.log = log;
    }

    /** Runs {@code notebook} (its cells get the outputs), writing it to {@code out} after each cell when not null. */
    public Result run(Notebook notebook, Path out) throws IOException {
        long start = System.nanoTime();
        Instant deadline = Instant.now().plus(options.notebookTimeout());
        List<JsonObject> cells = notebook.cells();
        for (JsonObject cell : cells) {
            if (Notebook.isCode(cell)) {
                cell.add("outputs", new JsonArray());
                cell.add("execution_count", JsonNull.INSTANCE);
            }
        }
        List<CellFailure> failures = new ArrayList<>();
        String stopped = null;
        int ran = 0;
        try (InProcessKernel kernel = new InProcessKernel(log)) {
            notebook.metadata().add("language_info", kernel.languageInfo());
            for (int i = 0; i < cells.size() && stopped == null; i++) {
                JsonObject cell = cells.get(i);
                List<String> tags = Notebook.tags(cell);
                if (!Notebook.isCode(cell) || tags.contains("skip-execution") || Notebook.source(cell).isBlank()) {
                    continue;
                }
                Duration left = Duration.between(Instant.now(), deadline);
                if (left.isNegative() || left.isZero()) {
                    stopped = "the notebook ran past its " + InProcessKernel.seconds(options.notebookTimeout())
                            + " limit before cell " + (i + 1);
                    break;
                }
                boolean notebookLimit = left.compareTo(options.cellTimeout()) < 0;
                Duration limit = notebookLimit ? left : options.cellTimeout();
                Instant began = Instant.now();
                int number = i + 1;
                ExitWatch.cellStarts(why -> endedBy(notebook, cell, kernel, began, number, why, out));
                InProcessKernel.Outcome outcome;
                try {
                    outcome = kernel.execute(Notebook.source(cell), limit);
                } finally {
                    ExitWatch.cellEnded();
                }
                ran++;
                record(cell, kernel.outputs(), kernel.executionCount(), began);
                if (outcome != InProcessKernel.Outcome.OK) {
                    var error = kernel.outputs().error();
                    CellFailure f = new CellFailure(i + 1, Notebook.id(cell), error.getErrorName(), error.getErrorMessage());
                    boolean allowed = tags.contains("raises-exception") && outcome == InProcessKernel.Outcome.ERROR;
                    if (!allowed) {
                        failures.add(f);
                        log.println(f);
                    }
                    if (outcome == InProcessKernel.Outcome.STUCK) {
                        stopped = "cell " + (i + 1) + " did not stop when interrupted";
                    } else if (outcome == InProcessKernel.Outcome.TIMED_OUT && notebookLimit) {
                        stopped = "the notebook ran past its " + InProcessKernel.seconds(options.notebookTimeout())
                                + " limit in cell " + (i + 1);
                    } else if (!allowed && !options.allowErrors()) {
                        stopped = "cell " + (i + 1) + " raised " + f.name();
                    }
                }
                if (out != null) {
                    notebook.write(out);
                }
            }
        }
        if (out != null) {
            notebook.write(out);
        }
        return new Result(List.copyOf(failures), ran, stopped, Duration.ofNanos(System.nanoTime() - start));
    }

    /** The JVM is ending under cell {@code number}: the cell gets the reason as its error, the run a failing status. */
    private void endedBy(Notebook notebook, JsonObject cell, InProcessKernel kernel, Instant began, int number, String why,
                         Path out) {
        record(cell, kernel.outputs(), kernel.executionCount(), began);
        JsonObject error = new JsonObject();
        error.addProperty("output_type", "error");
        error.addProperty("ename", "JvmExit");
        error.addProperty("evalue", why);
        error.add("traceback", new JsonArray());
        cell.getAsJsonArray("outputs").add(error);
        log.println("cell " + number + " ended the JVM: " + why + "; the cells after it did not run");
        log.flush();
        try {
            if (out != null) notebook.write(out);
        } catch (IOException e) {
            log.println("the notebook could not be written to " + out + ": " + e.getMessage());
        }
        Runtime.getRuntime().halt(EXITED);   // a status that fails, not the 0 a library may have asked for
    }

    /** The exit status of a run whose JVM a cell ended (through a library's System.exit). */
    public static final int EXITED = 3;

    private static void record(JsonObject cell, CellOutputs outputs, int executionCount, Instant began) {
        cell.add("outputs", outputs.outputs());
        cell.addProperty("execution_count", executionCount);
        JsonObject meta = cell.getAsJsonObject("metadata");
        JsonObject execution = new JsonObject();
        execution.addProperty("iopub.execute_input", began.toString());
        execution.addProperty("shell.execute_reply", Instant.now().toString());
        meta.add("execution", execution);
    }

    /** "ran 11 cells in 12.3 s" and what went wrong. */
    public static String summary(Result r) {
        String s = String.format(Locale.ROOT, "ran %d cell%s in %.1f s", r.cellsRun(), r.cellsRun() == 1 ? "" : "s",
                r.elapsed().toMillis() / 1000.0);
        if (!r.failures().isEmpty()) s += ", " + r.failures().size() + " raised";
        if (r.stoppedBecause() != null) s += "; stopped: " + r.stoppedBecause();
        return s;
    }
}
