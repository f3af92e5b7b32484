package org.mpi2nccl.lessons;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.mpi2nccl.parallel.timing.TimelineEvent;
import org.mpi2nccl.parallel.timing.TimelineTrace;
import org.mpi2nccl.files.PrivateTemp;

/**
 * Lesson 03's reading of two timelines of the same steps, without and with overlap ({@link TimelineTrace}): in
 * sentences computed from the recorded events, how many all-reduces began while backward was still running, and how
 * long the step waited for the gradients after backward.
 */
public final class Lesson03Timeline {
    private static Path traces;

    private Lesson03Timeline() {}

    /**
     * Where a lesson writes a Chrome trace, e.g. {@code traceFile("lesson03-overlap")}: {@code <name>-trace.json}
     * in a folder of this kernel inside the user's private folder, created 0600. Not a fixed name in the shared
     * temporary folder: there the first student's file blocks every other student's lesson, and anyone can read
     * it. The folder goes when the kernel ends; copy the trace elsewhere to keep it.
     */
    public static synchronized Path traceFile(String name) {
        if (!name.matches("[A-Za-z0-9-]+")) {
            throw new IllegalArgumentException("a trace name is letters, digits and '-', like \"lesson03-overlap\"; got " + name);
        }
        if (traces == null) traces = PrivateTemp.newFolder(PrivateTemp.folder(), "traces");
        Path file = traces.resolve(name + "-trace.json");
        try {
            Files.createFile(file, PrivateTemp.fileMode());
        } catch (FileAlreadyExistsException e) {
            // written before in this kernel: the new trace replaces it
        } catch (IOException e) {
            throw new UncheckedIOException("could not create " + file + " for the trace", e);
        }
        return file;
    }

    /** What the two timelines show, in sentences computed from their events. */
    public static String verdict(TimelineTrace off, TimelineTrace on) {
        List<String> out = new ArrayList<>();
        int steps = steps(on);
        out.add(String.format(Locale.ROOT, "Without overlap, %d of %d all-reduces started before backward ended;"
                + " with overlap, %d of %d did (%d ranks, %d step%s each).", off.allReducesDuringBackward(), off.allReduces(),
                on.allReducesDuringBackward(), on.allReduces(), on.ranks(), steps, steps == 1 ? "" : "s"));
        double waitOff = perStepMs(off.waitNanos(), off), waitOn = perStepMs(on.waitNanos(), on);
        // Two steps each way are too few to say which step was faster (the table's medians are the measurement); the
        // events do say where the all-reduces ran and how long the step waited after backward.
        String effect = waitOn < 0.8 * waitOff
                ? "so overlap moved all-reduce time under backward and shortened the wait"
                : "so here overlap hid little: the all-reduce thread needs a free core while backward runs";
        out.add(String.format(Locale.ROOT, "After backward a step waited %.2f ms for the gradients without overlap and"
                + " %.2f ms with it, %s. Whether the whole step got shorter is the table's to say: %d recorded steps"
                + " each way are too few to time it on a busy machine.", waitOff, waitOn, effect, steps));
        return String.join("\n", out);
    }

    /** Steps recorded per rank. */
    private static int steps(TimelineTrace t) {
        return (int) t.events(0).stream().mapToInt(TimelineEvent::step).distinct().count();
    }

    /** {@code nanos} summed over every rank and step, as milliseconds per rank and step. */
    private static double perStepMs(long nanos, TimelineTrace t) {
        int n = Math.max(1, steps(t) * t.ranks());
        return nanos / 1e6 / n;
    }
}
