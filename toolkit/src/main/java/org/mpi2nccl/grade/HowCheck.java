package org.mpi2nccl.grade;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpi2nccl.notebook.Notebook;

/**
 * Whether an answer is built the way its exercise asks. Right numbers say what the code computed, not how: a ring
 * all-reduce answered with MPI's own {@code Allreduce} gives the same sums. An exercise cell in the lesson's source
 * names the calls its answer must not make, in its metadata:
 * <pre>
 *   "mpi2nccl": {"exercise": "all-gather", "builds": "from Sendrecv", "without": ["Allgather", "allGather", ...]}
 * </pre>
 * The student's exercise cell (the only code of theirs that runs: {@link Submission}) is read with its comments and
 * strings left out; a call of a listed name on any object ({@code MPI.COMM_WORLD.Allgather(...)},
 * {@code world.allGather(...)}) fails the exercise, and so does reflection, which could name the call in pieces. A
 * name listed as {@code "type Foo"} forbids any use of the class {@code Foo} (the library's own answer, wrapped).
 * The student's own functions (called without an object, such as {@code allGather(buf)}) are theirs to call.
 *
 * <p>Every exercise, rule or not, is also read for names that would hijack its check ({@link #shadows}).
 */
final class HowCheck {
    private static final Pattern REFLECTION = Pattern.compile(
            "\\b(?:java\\.lang\\.reflect|getMethod|getDeclaredMethod|getMethods|getDeclaredMethods|MethodHandles?|"
            + "Class\\s*\\.\\s*forName|invokeExact|LambdaMetafactory)\\b");

    /** What the source asks of one exercise: how it is built, and the calls it must not make. */
    record Rule(String builds, List<String> without) {
    }

    private HowCheck() {
    }

    /** The rule in the source's exercise cell, if it has one. */
    static Optional<Rule> of(JsonObject sourceCell) {
        JsonObject o = Notebook.lessonMetadata(sourceCell);
        if (o == null || !o.has("without")) return Optional.empty();
        List<String> names = new ArrayList<>();
        JsonArray a = o.getAsJsonArray("without");
        a.forEach(e -> names.add(e.getAsString()));
        String builds = o.has("builds") ? o.get("builds").getAsString() : "the way the lesson shows";
        return Optional.of(new Rule(builds, List.copyOf(names)));
    }

    /** Why {@code code} breaks {@code rule} (the first call found, with its line), or empty when it keeps to it. */
    static Optional<String> broken(Rule rule, String code) {
        String bare = withoutCommentsAndStrings(code);
        for (String name : rule.without()) {
            // "type Foo": any use of the class Foo (new Foo(...), Foo.of(...), a field of type Foo); else a call .name(...)
            boolean type = name.startsWith("type ");
            if (type) name = name.substring(5);
            Matcher m = Pattern.compile(type ? "(?<![\\w$])" + Pattern.quote(name) + "(?![\\w$])"
                    : "\\.\\s*" + Pattern.quote(name) + "\\s*\\(").matcher(bare);
            if (m.find()) {
                return Optional.of("the answer calls " + name + " (line " + lineOf(bare, m.start()) + " of the exercise"
                        + " cell): this exercise is to build it " + rule.builds() + ", without " + name);
            }
        }
        Matcher r = REFLECTION.matcher(bare);
        if (r.find()) {
            return Optional.of("the answer uses reflection (" + r.group() + ", line " + lineOf(bare, r.start())
                    + " of the exercise cell), which this exercise does not need: build it " + rule.builds());
        }
        return Optional.empty();
    }

    /**
     * Why {@code code} hides a name the exercise's checks use, or empty: a class of the student's named like the
     * check's class ({@code class Lesson02 {...}} answering "RIGHT" for it), or a variable named like a package
     * ({@code org}, which hides {@code org.mpi2nccl...} in a fully qualified call). {@code checks}: the check cells;
     * {@code reference}: the lesson's own answer, whose classes are the student's to write (a check that makes the
     * student's {@code MyDataParallel} names it too).
     */
    static Optional<String> shadows(String code, List<String> checks, String reference) {
        String bare = withoutCommentsAndStrings(code);
        java.util.Set<String> used = new java.util.TreeSet<>();
        for (String c : checks) {
            Matcher m = CAPITALIZED.matcher(withoutCommentsAndStrings(c));
            while (m.find()) used.add(m.group());
        }
        Matcher asked = TYPE_DECLARATION.matcher(withoutCommentsAndStrings(reference));
        while (asked.find()) used.remove(asked.group(1));
        Matcher type = TYPE_DECLARATION.matcher(bare);
        while (type.find()) {
            if (used.contains(type.group(1))) {
                return Optional.of("the answer declares its own " + type.group(1) + " (line " + lineOf(bare, type.start())
                        + " of the exercise cell), the name of the check's class: the check would call the answer's");
            }
        }
        Matcher pkg = PACKAGE_NAME.matcher(bare);
        if (pkg.find()) {
            return Optional.of("the answer declares a name " + pkg.group(1) + " (line " + lineOf(bare, pkg.start())
                    + " of the exercise cell) that hides the package " + pkg.group(1) + " the checks call into");
        }
        return Optional.empty();
    }

    private static final Pattern CAPITALIZED = Pattern.compile("\\b[A-Z][A-Za-z0-9_]*\\b");
    private static final Pattern TYPE_DECLARATION = Pattern.compile("\\b(?:class|interface|enum|record)\\s+([A-Za-z_]\\w*)");
    /** A package's first name standing alone (not followed by a dot): a variable, field or method of that name. */
    private static final Pattern PACKAGE_NAME = Pattern.compile("\\b(org|java|javax|mpi|jdk)\\b(?!\\s*\\.)");

    /** The verdict of an exercise whose data was right, once its answer's source is read; {@code v} if none. */
    static Verdict judge(Exercise ex, Notebook source, Notebook assembled, Verdict v) {
        JsonObject ours = source.cell(ex.cellId());
        JsonObject theirs = assembled.cell(ex.cellId());
        if (ours == null || theirs == null) return v;
        String code = Notebook.source(theirs);
        List<String> checks = ex.checkIds().stream().map(source::cell).filter(java.util.Objects::nonNull)
                .map(Notebook::source).toList();
        // named even when the numbers already failed: the instructor learns why a check said RIGHT
        Optional<String> hijack = shadows(code, checks, Notebook.source(ours));
        if (hijack.isPresent()) {
            return Verdict.failed(ex.name(), hijack.get() + (v.passed() ? " (which then said RIGHT)" : " (" + v.detail() + ")"));
        }
        if (!v.passed()) return v;
        Optional<Rule> rule = of(ours);
        return rule.flatMap(r -> broken(r, code)).map(w -> Verdict.failed(ex.name(), w + " (its numbers were right)"))
                .orElse(v);
    }

    private static int lineOf(String text, int at) {
        int line = 1;
        for (int i = 0; i < at; i++) if (text.charAt(i) == '\n') line++;
        return line;
    }

    /**
     * Java source with comments, string and character literals (text blocks too) turned into spaces, line breaks
     * kept: a comment that mentions {@code Allreduce} is no call of it, and line numbers stay right.
     */
    static String withoutCommentsAndStrings(String code) {
        StringBuilder out = new StringBuilder(code.length());
        int i = 0;
        int n = code.length();
        while (i < n) {
            char c = code.charAt(i);
            String end = code.startsWith("//", i) ? "\n" : code.startsWith("/*", i) ? "*/"
                    : code.startsWith("\"\"\"", i) ? "\"\"\"" : c == '"' ? "\"" : c == '\'' ? "'" : null;
            if (end == null) {
                out.append(c);
                i++;
                continue;
            }
            int from = i;
            i += end.equals("\n") || end.equals("*/") ? 2 : end.length();
            while (i < n && !code.startsWith(end, i)) {
                if ((end.equals("\"") || end.equals("'") || end.equals("\"\"\"")) && code.charAt(i) == '\\') i++;
                if (end.length() == 1 && !end.equals("\n") && i < n && code.charAt(i) == '\n') break;   // unclosed
                i++;
            }
            i = Math.min(n, end.equals("\n") ? i : i + end.length());
            for (int k = from; k < i; k++) out.append(code.charAt(k) == '\n' ? '\n' : ' ');
        }
        return out.toString();
    }
}
