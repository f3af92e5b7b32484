package org.mpi2nccl.kernel.jshell;

import jdk.jshell.DeclarationSnippet;
import jdk.jshell.Diag;
import jdk.jshell.EvalException;
import jdk.jshell.JShell;
import jdk.jshell.JShellException;
import jdk.jshell.Snippet;
import jdk.jshell.UnresolvedReferenceException;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A snippet that failed, as the {@link CellError} a student reads: a compile error names the notebook cell's
 * line and points at the column; an exception keeps its class, message and causes, with cell code's frames
 * given as cell lines ({@link SnippetPlaces}). A few mistakes every lesson meets get a hint line.
 */
final class CellErrors {
    /** javac's words when an array or tensor is handed to a collective that takes a CommBuffer. */
    private static final Pattern NOT_A_BUFFER =
            Pattern.compile("\\b(NDArray|Tensor) cannot be converted to (?:[\\w.]*\\.)?CommBuffer");
    /** The method javac names ("no suitable method found for allReduce(...)", "method allReduce in ..."). */
    private static final Pattern NAMED = Pattern.compile("(?:method found for|method) (\\w+)[( ]");
    /** The last method called in the source before the error ("comm.allReduce(" ...). */
    private static final Pattern CALLED = Pattern.compile("\\.\\s*(\\w+)\\s*\\(");

    private final JShell shell;
    private final SnippetPlaces places;

    CellErrors(JShell shell, SnippetPlaces places) {
        this.shell = shell;
        this.places = places;
    }

    static CellError interrupted() {
        return new CellError(CellError.Kind.INTERRUPTED, "Interrupted", "the cell was interrupted",
                List.of("Interrupted: the cell was stopped before it finished."));
    }

    CellError fromException(JShellException ex) {
        if (ex instanceof UnresolvedReferenceException) {
            Snippet s = ((UnresolvedReferenceException) ex).getSnippet();
            String missing = s instanceof DeclarationSnippet
                    ? shell.unresolvedDependencies((DeclarationSnippet) s).collect(Collectors.joining(", "))
                    : "?";
            return new CellError(CellError.Kind.EXCEPTION, "UnresolvedReference",
                    "this calls code that uses something not declared yet: " + missing,
                    List.of("UnresolvedReference: declare " + missing + " first, then run the cell again."));
        }
        if (ex instanceof EvalException) {
            EvalException e = (EvalException) ex;
            String name = e.getExceptionClassName();
            if ("java.lang.ThreadDeath".equals(name)) {
                return interrupted();
            }
            List<String> lines = new ArrayList<>();
            Throwable t = e;
            String prefix = "";
            while (t != null) {
                String tName = t instanceof EvalException ? ((EvalException) t).getExceptionClassName()
                        : t.getClass().getName();
                lines.add(prefix + tName + (t.getMessage() == null ? "" : ": " + t.getMessage()));
                for (StackTraceElement el : t.getStackTrace()) {
                    if (el.getClassName().startsWith("jdk.internal.reflect")
                            || el.getClassName().startsWith("java.lang.reflect")
                            || el.getClassName().startsWith("jdk.jshell")) {
                        break; // below the cell: JShell's own machinery
                    }
                    lines.add("\tat " + places.frame(el));
                }
                t = t.getCause();
                prefix = "Caused by: ";
            }
            return new CellError(CellError.Kind.EXCEPTION, name, String.valueOf(e.getMessage()), lines);
        }
        return new CellError(CellError.Kind.EXCEPTION, ex.getClass().getSimpleName(), String.valueOf(ex.getMessage()),
                List.of(String.valueOf(ex)));
    }

    /** The snippet did not compile: each error with its notebook line, the line itself and a caret. */
    CellError compileError(Snippet snippet, int firstLine) {
        List<String> lines = new ArrayList<>();
        String source = snippet.source();
        String firstMessage = null;
        for (Diag d : shell.diagnostics(snippet).collect(Collectors.toList())) {
            if (!d.isError()) {
                continue;
            }
            int pos = (int) Math.max(0, Math.min(d.getPosition(), source.length()));
            int lineStart = source.lastIndexOf('\n', pos - 1) + 1;
            int lineEnd = source.indexOf('\n', pos);
            if (lineEnd < 0) {
                lineEnd = source.length();
            }
            int lineNo = firstLine + (int) source.substring(0, lineStart).chars().filter(c -> c == '\n').count();
            String message = d.getMessage(Locale.ROOT);
            if (firstMessage == null) {
                firstMessage = message.lines().findFirst().orElse(message);
            }
            lines.add("line " + lineNo + ": " + message.lines().findFirst().orElse(""));
            message.lines().skip(1).filter(l -> !l.strip().startsWith("location:")).forEach(l -> lines.add("    " + l));
            lines.add("    " + source.substring(lineStart, lineEnd));
            lines.add("    " + " ".repeat(Math.max(0, pos - lineStart)) + "^");
            String hint = hint(message, source.substring(0, pos));
            if (hint != null) {
                lines.add(hint);
            }
        }
        if (firstMessage == null && snippet instanceof DeclarationSnippet) {
            String missing = shell.unresolvedDependencies((DeclarationSnippet) snippet)
                    .collect(Collectors.joining(", "));
            firstMessage = "uses something not declared: " + missing;
            lines.add(firstMessage);
        }
        if (firstMessage == null) {
            firstMessage = "the snippet was not accepted (" + shell.status(snippet) + ")";
            lines.add(firstMessage);
        }
        return new CellError(CellError.Kind.COMPILE, "CompilationError", firstMessage, lines);
    }

    /**
     * A hint for a compile error, or null. Communicators move CommBuffers; an NDArray (or a Tensor's data) goes
     * through {@code org.mpi2nccl.comm.Tensors}, which hands it over as a buffer and copies the result back.
     *
     * @param before the snippet's source up to the error's position (it names the method being called)
     */
    static String hint(String message, String before) {
        Matcher m = NOT_A_BUFFER.matcher(message);
        if (!m.find()) {
            return null;
        }
        String method = "allReduce";
        Matcher named = NAMED.matcher(message);
        if (named.find()) {
            method = named.group(1);
        } else {
            Matcher call = CALLED.matcher(before);
            while (call.find()) {
                method = call.group(1);
            }
        }
        String rest = method.equals("allReduce") || method.equals("reduceScatter") ? ", Reduction.SUM"
                : method.equals("broadcast") ? ", 0" : ", ...";
        if (m.group(1).equals("Tensor")) {
            return "hint: a communicator takes NDArrays and CommBuffers; pass the tensor's array: comm." + method
                    + "(tensor.data()" + rest + ")";
        }
        return "hint: this call takes CommBuffers; an NDArray goes through org.mpi2nccl.comm.Tensors: Tensors." + method
                + "(comm, array" + rest + ")";
    }
}
