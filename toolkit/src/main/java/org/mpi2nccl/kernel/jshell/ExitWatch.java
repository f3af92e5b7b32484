package org.mpi2nccl.kernel.jshell;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The last word of a JVM that a cell ended. A cell's own {@code System.exit} is refused before it runs (the cell
 * guard reads its compiled class), but a library the cell calls may still end the JVM ({@code System.exit} in some
 * command-line {@code main}). Java cannot refuse that any more (no security manager), so it is reported: while a
 * cell runs, a shutdown hook knows which cell it is, finds the call that is ending the JVM on the exiting thread's
 * stack, and hands a sentence to the cell's reporter (the kernel prints it into the cell; {@code execute} records
 * it in the notebook and ends with a failing status instead of 0). {@code Runtime.halt} runs no hook: not seen.
 */
public final class ExitWatch {
    /** The reporters of the cell that runs, innermost first ({@code execute} runs the kernel, which runs the cell). */
    private static final Deque<Consumer<String>> RUNNING = new ArrayDeque<>();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ExitWatch::onExit, "cell-exit-watch"));
    }

    private ExitWatch() {
    }

    /**
     * From now until the matching {@link #cellEnded()}, an exit of the JVM is a cell's: {@code reporter} gets the
     * sentence, before the reporters of enclosing runs.
     */
    public static void cellStarts(Consumer<String> reporter) {
        synchronized (RUNNING) {
            RUNNING.push(reporter);
        }
    }

    public static void cellEnded() {
        synchronized (RUNNING) {
            RUNNING.poll();
        }
    }

    private static void onExit() {
        List<Consumer<String>> reporters;
        synchronized (RUNNING) {
            reporters = List.copyOf(RUNNING);
            RUNNING.clear();
        }
        if (reporters.isEmpty()) return;   // the JVM ends for its own reasons (a shutdown request, Ctrl-C)
        String why = describe(Thread.getAllStackTraces());
        for (Consumer<String> r : reporters) r.accept(why);
    }

    /** "System.exit, called by C.m(C.java:12): the JVM ended ..." from the stacks of the JVM's threads. */
    static String describe(Map<Thread, StackTraceElement[]> stacks) {
        for (StackTraceElement[] frames : stacks.values()) {
            for (int i = 0; i < frames.length; i++) {
                StackTraceElement f = frames[i];
                boolean exit = f.getMethodName().equals("exit") && (f.getClassName().equals("java.lang.Runtime")
                        || f.getClassName().equals("java.lang.System"));
                if (!exit || f.getClassName().equals("java.lang.Runtime") && i + 1 < frames.length
                        && frames[i + 1].getClassName().equals("java.lang.System")) {
                    continue;   // System.exit calls Runtime.exit: name the outer one
                }
                String by = i + 1 < frames.length ? ", called by " + frame(frames[i + 1]) : "";
                return simpleName(f.getClassName()) + ".exit" + by + ": a library the cell called ended the kernel's JVM."
                        + " Cells cannot call it themselves; find what called it (a command-line main) and call"
                        + " something that returns instead";
            }
        }
        return "the kernel's JVM was asked to end while the cell ran (Runtime.exit or a signal)";
    }

    /** "a.b.C.m(C.java:12)": without the class loader's name that StackTraceElement.toString adds. */
    private static String frame(StackTraceElement f) {
        return f.getClassName() + "." + f.getMethodName() + "(" + (f.getFileName() == null ? "?" : f.getFileName())
                + (f.getLineNumber() > 0 ? ":" + f.getLineNumber() : "") + ")";
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
    }
}
