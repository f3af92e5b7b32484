package org.mpi2nccl.kernel.jshell;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Calls a cell must not make, refused before the cell is compiled. A cell runs inside the kernel's own JVM (and a
 * {@code %%mpj} cell inside a rank engine's), so {@code System.exit(0)} would end the kernel and the cell would never
 * get its reply. A SecurityManager could once veto the exit at run time; it is deprecated and gone in newer Java,
 * so the cell's source is read instead: the code with its strings and comments blanked out, searched for
 * {@code System.exit(}, {@code Runtime.getRuntime().exit(} and {@code .halt(}. A call through a variable
 * ({@code Runtime r = Runtime.getRuntime(); r.exit(0)}) is not seen.
 *
 * <p>In a {@code %%mpj} cell MPJ is already running: {@code MPI.Init} and {@code MPI.Finalize} belong to the
 * engine, and calling them would print MPJ's usage text or end the rank; the cell gets the reason instead.
 */
public final class CellGuard {
    private CellGuard() {}

    private static final Pattern EXIT = Pattern.compile(
            "\\bSystem\\s*\\.\\s*exit\\s*\\(|\\bRuntime\\s*\\.\\s*getRuntime\\s*\\(\\s*\\)\\s*\\.\\s*(exit|halt)\\s*\\(");
    private static final Pattern MPI_INIT = Pattern.compile("\\bMPI\\s*\\.\\s*(Init|InitThread)\\s*\\(");
    private static final Pattern MPI_FINALIZE = Pattern.compile("\\bMPI\\s*\\.\\s*Finalize\\s*\\(");

    /** Refuses a cell that would end the JVM it runs in. */
    public static void checkNoExit(String source, int firstLine) throws CellError {
        Matcher m = EXIT.matcher(codeOnly(source));
        if (m.find()) {
            String call = m.group(1) != null ? "Runtime." + m.group(1) : "System.exit";
            throw refused(call + " is not allowed in a cell: the kernel keeps running; to stop rank engines use %mpj stop",
                    source, m.start(), firstLine);
        }
    }

    /** Refuses MPI.Init and MPI.Finalize in a {@code %%mpj} cell, whose ranks the engine set up. */
    public static void checkNoMpiLifecycle(String source, int firstLine) throws CellError {
        String code = codeOnly(source);
        Matcher init = MPI_INIT.matcher(code);
        if (init.find()) {
            throw refused("MPI." + init.group(1) + " is not needed: ranks are already initialised in an engine: use MPI.COMM_WORLD"
                    + " (MPI.COMM_WORLD.Rank(), .Size(), ...)", source, init.start(), firstLine);
        }
        Matcher fin = MPI_FINALIZE.matcher(code);
        if (fin.find()) {
            throw refused("MPI.Finalize is not allowed in a cell: the engine finalizes MPI when it stops: %mpj stop",
                    source, fin.start(), firstLine);
        }
    }

    private static CellError refused(String message, String source, int at, int firstLine) {
        int line = firstLine;
        for (int i = 0; i < at; i++) {
            if (source.charAt(i) == '\n') line++;
        }
        int start = source.lastIndexOf('\n', at - 1) + 1;
        int end = source.indexOf('\n', at);
        String text = source.substring(start, end < 0 ? source.length() : end).strip();
        return new CellError(CellError.Kind.EXCEPTION, "NotAllowedInCell", message, List.of("line " + line + ": " + text));
    }

    /**
     * The source with every string, character, text block and comment replaced by spaces (newlines kept), so that
     * {@code "System.exit(0)"} in a string or a comment is not taken for the call.
     */
    static String codeOnly(String s) {
        StringBuilder b = new StringBuilder(s);
        int i = 0, n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            int end;
            if (s.startsWith("//", i)) {
                end = s.indexOf('\n', i);
                end = end < 0 ? n : end;
            } else if (s.startsWith("/*", i)) {
                end = s.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
            } else if (s.startsWith("\"\"\"", i)) {
                end = s.indexOf("\"\"\"", i + 3);
                while (end > 0 && s.charAt(end - 1) == '\\') end = s.indexOf("\"\"\"", end + 1);
                end = end < 0 ? n : end + 3;
            } else if (c == '"' || c == '\'') {
                end = i + 1;
                while (end < n && s.charAt(end) != c && s.charAt(end) != '\n') end += s.charAt(end) == '\\' ? 2 : 1;
                end = Math.min(n, end + 1);
            } else {
                i++;
                continue;
            }
            for (int k = i; k < end; k++) {
                if (b.charAt(k) != '\n') b.setCharAt(k, ' ');
            }
            i = end;
        }
        return b.toString();
    }
}
