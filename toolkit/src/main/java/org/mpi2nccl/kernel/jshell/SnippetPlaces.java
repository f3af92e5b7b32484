package org.mpi2nccl.kernel.jshell;

import jdk.jshell.Snippet;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where each snippet JShell ran sits in the notebook: its cell and the cell line it starts on.
 *
 * <p>JShell names the frames of cell code by snippet id and line inside the snippet ({@code .twice(#49:3)}), ids
 * a student never sees. With this map a frame reads {@code twice(cell line 7)}, the line the notebook shows; a
 * method declared in an earlier cell says so.
 */
final class SnippetPlaces {
    private record Place(long cell, int firstLine) {
    }

    private final Map<String, Place> places = new ConcurrentHashMap<>();
    private volatile long cell;
    private volatile int runningLine;

    /** A new cell begins: snippets put from now on belong to it. */
    void cellStarted() {
        cell++;
    }

    /** {@code snippet} starts on notebook line {@code firstLine} of the current cell. */
    void put(Snippet snippet, int firstLine) {
        places.put(snippet.id(), new Place(cell, firstLine));
    }

    /** The snippet starting on cell line {@code firstLine} runs now (0: none). */
    void running(int firstLine) {
        runningLine = firstLine;
    }

    /**
     * "cell line 7" (or "line 3 of an earlier cell") for a frame of cell code; null for any other frame. A live
     * thread's frames carry JShell's wrapper classes ({@code REPL.$JShell$20}) and their own line numbers, which
     * JShell maps only for exceptions: such a frame gets the first line of the snippet running now.
     */
    String line(StackTraceElement el) {
        String file = el.getFileName();
        Place place = file != null && file.startsWith("#") ? places.get(file.substring(1)) : null;
        if (place == null) {
            int running = runningLine;
            return running > 0 && el.getClassName().startsWith("REPL.$JShell$") ? "cell line " + running : null;
        }
        int line = place.firstLine + Math.max(1, el.getLineNumber()) - 1;
        return place.cell == cell ? "cell line " + line : "line " + line + " of an earlier cell";
    }

    /**
     * A stack frame as a student reads it: cell code as {@code name(cell line N)}, anything else (the toolkit,
     * the JDK) as Java prints it.
     */
    String frame(StackTraceElement el) {
        String file = el.getFileName();
        Place place = file != null && file.startsWith("#") ? places.get(file.substring(1)) : null;
        if (place == null) {
            return el.toString();
        }
        int line = place.firstLine + Math.max(1, el.getLineNumber()) - 1;
        String name = el.getClassName().isEmpty() ? el.getMethodName()
                : el.getClassName() + (el.getMethodName().isEmpty() ? "" : "." + el.getMethodName());
        String where = place.cell == cell ? "cell line " + line : "line " + line + " of an earlier cell";
        return (name.isEmpty() ? "" : name) + "(" + where + ")";
    }
}
