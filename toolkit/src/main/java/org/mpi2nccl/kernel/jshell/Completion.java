package org.mpi2nccl.kernel.jshell;

import jdk.jshell.SourceCodeAnalysis;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Tab completion and Shift-Tab inspection, from JShell's source analysis of one evaluator: the kernel's own, or a
 * rank engine's for a {@code %%mpj} cell (its variables live there). {@code options} replace the cell's text from
 * {@code anchor} to the cursor.
 */
public record Completion(List<String> options, int anchor) {
    public Completion {
        options = List.copyOf(options);
    }

    /** The same completion for a cell whose code starts {@code shift} characters later (after a magic's line). */
    public Completion shifted(int shift) {
        return new Completion(options, anchor + shift);
    }

    /** What may follow the text before {@code at}, types that fit first; null when there is nothing. */
    static Completion of(SourceCodeAnalysis analysis, String code, int at) {
        int[] anchor = new int[1];
        List<SourceCodeAnalysis.Suggestion> suggestions = analysis.completionSuggestions(code, at, anchor);
        if (suggestions == null || suggestions.isEmpty()) {
            return null;
        }
        List<String> options = suggestions.stream()
                .sorted((a, b) -> Boolean.compare(b.matchesType(), a.matchesType()))
                .map(SourceCodeAnalysis.Suggestion::continuation)
                .distinct()
                .collect(Collectors.toList());
        return new Completion(options, anchor[0]);
    }

    /**
     * The signature (and javadoc, where the class path has it) of what the cursor is on: a method, when the
     * cursor is on its name or inside its parentheses; a variable or class otherwise. Null when there is none.
     */
    static String inspect(SourceCodeAnalysis analysis, String code, int at) {
        int end = Math.min(at, code.length());
        while (end < code.length() && Character.isJavaIdentifierPart(code.charAt(end))) {
            end++;
        }
        String text = documentation(analysis, code, end);
        if (text == null && end < code.length() && code.charAt(end) == '(') {
            text = documentation(analysis, code, end + 1); // JShell documents a call from inside its parentheses
        }
        return text;
    }

    private static String documentation(SourceCodeAnalysis analysis, String code, int at) {
        List<SourceCodeAnalysis.Documentation> docs = analysis.documentation(code, at, true);
        if (docs == null || docs.isEmpty()) {
            return null;
        }
        return docs.stream()
                .map(d -> d.signature() + (d.javadoc() == null ? "" : "\n" + d.javadoc()))
                .collect(Collectors.joining("\n\n"));
    }
}
