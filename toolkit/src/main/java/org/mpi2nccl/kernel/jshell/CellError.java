package org.mpi2nccl.kernel.jshell;

import java.util.List;

/**
 * A cell that did not run to its end, in the three parts Jupyter shows: the error's name, its message and the
 * lines of its traceback. The same form travels from rank engines to the kernel, so a rank's error prints
 * exactly like a local one.
 */
public class CellError extends Exception {
    /** What went wrong, for the kernel to decide how to report it. */
    public enum Kind { COMPILE, INCOMPLETE, EXCEPTION, INTERRUPTED, ENGINE }

    private final Kind kind;
    private final String name;
    private final List<String> traceback;

    public CellError(Kind kind, String name, String message, List<String> traceback) {
        super(sayable(name, message));
        this.kind = kind;
        this.name = name;
        this.traceback = List.copyOf(traceback);
    }

    /**
     * The message, or, for an error thrown without one (StackOverflowError, a bare NullPointerException), its name:
     * "rank 1: null" told the student nothing.
     */
    static String sayable(String name, String message) {
        if (message != null && !message.isBlank() && !message.equals("null")) return message;
        String n = name == null || name.isBlank() ? "an error without a message" : name;
        return n.substring(n.lastIndexOf('.') + 1) + " (no message)";
    }

    public Kind kind() {
        return kind;
    }

    /** The error's short name, e.g. {@code CompilationError} or {@code java.lang.ArithmeticException}. */
    public String name() {
        return name;
    }

    /** The lines Jupyter shows (no newlines inside a line). */
    public List<String> traceback() {
        return traceback;
    }

    @Override
    public String toString() {
        return name + ": " + getMessage();
    }
}
