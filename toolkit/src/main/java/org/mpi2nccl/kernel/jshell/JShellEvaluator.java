package org.mpi2nccl.kernel.jshell;

import org.mpi2nccl.launch.rank.WaitPlace;
import jdk.jshell.ExpressionSnippet;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.SourceCodeAnalysis.Completeness;
import jdk.jshell.VarSnippet;

import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Java cells, evaluated by JShell: one evaluator holds the state of one notebook (or one rank engine).
 *
 * <p>A cell is split into JShell snippets and evaluated snippet by snippet; the first failing snippet stops the
 * cell and becomes a {@link CellError}. The cell's value is the value of its last snippet when that snippet is an
 * expression (IJava's habit: a declaration shows nothing).
 */
public final class JShellEvaluator implements AutoCloseable {
    private final JShell shell;
    private final CellExecutionControl.Provider provider;
    private final Set<String> classPath = new LinkedHashSet<>();
    /** JShell's source analysis, made on first use: see {@link #analysis()}. */
    private volatile SourceCodeAnalysis analysis;
    private final Object analysisLock = new Object(); // not the evaluator's lock: completion works while a cell runs

    private final SnippetPlaces places = new SnippetPlaces();
    private final CellErrors errors;

    private JShellEvaluator(JShell shell, CellExecutionControl.Provider provider) {
        this.shell = shell;
        this.provider = provider;
        this.errors = new CellErrors(shell, places);
    }

    /**
     * Starts JShell for a notebook (the kernel): source analysis for splitting cells, completion and inspection,
     * then the imports and one warm-up snippet, so that the first cell does not pay for JShell's first run.
     *
     * @param parent    the class loader cells' classes hang below (what they see without %jars)
     * @param classPath the jars and folders {@code parent} loads from: the compiler needs them to compile cells
     * @param imports   import statements evaluated before the first cell, one import per element
     */
    public static JShellEvaluator start(ClassLoader parent, List<String> classPath, List<String> imports)
            throws CellError {
        JShellEvaluator evaluator = create(parent, classPath, null);
        evaluator.analysis(); // its class index (for completion) builds in the background while the imports compile
        evaluator.evalImports(imports);
        evaluator.eval(SplitCell.single("int $started = 1;")); // compiles and runs once: warms JShell up
        evaluator.shell.drop(evaluator.shell.variables().filter(v -> v.name().equals("$started")).findFirst().get());
        return evaluator;
    }

    /**
     * Starts JShell for a rank engine: cells run on threads of {@code runIn} (MPJ multicore ranks need their own
     * group) and come already split ({@link #eval(SplitCell)}), so JShell's source analysis and its class index
     * are not made at start (only rank 0's, when the notebook first asks it to complete a {@code %%mpj} cell). The caller's first snippet must not call MPI (it still runs on JShell's own thread): a
     * declaration such as {@code int rank = 2;}.
     */
    public static JShellEvaluator startForRank(ClassLoader parent, List<String> classPath, List<String> imports,
                                               ThreadGroup runIn) throws CellError {
        JShellEvaluator evaluator = create(parent, classPath, runIn);
        evaluator.evalImports(imports);
        return evaluator;
    }

    private static JShellEvaluator create(ClassLoader parent, List<String> classPath, ThreadGroup runIn) {
        Set<String> visible = classPath.stream().map(p -> new File(p).getAbsolutePath()).collect(Collectors.toSet());
        CellExecutionControl.Provider provider = new CellExecutionControl.Provider(parent, visible, runIn);
        JShell shell = JShell.builder()
                .executionEngine(provider, Map.of())
                .compilerOptions("-Xlint:none", "-proc:none")
                .build();
        JShellEvaluator evaluator = new JShellEvaluator(shell, provider);
        // The class path goes in before the source analysis exists. Making the analysis starts JShell's class
        // indexer on a background thread; its first look at the compiler's class path, when none is set yet,
        // stores the JVM's default (java.class.path) and can overwrite ours set meanwhile: the cells then miss
        // every jar outside java.class.path ("package tech.tablesaw.api does not exist", now and then on a rank
        // engine's start under MPJ multicore, whose JVM class path is only the toolkit and gson). JDK-8177650 is the
        // same indexer reading a file manager that is not configured yet.
        if (!classPath.isEmpty()) {
            evaluator.addToClasspath(String.join(File.pathSeparator, classPath));
        }
        return evaluator;
    }

    private void evalImports(List<String> imports) throws CellError {
        for (String i : imports) {
            eval(SplitCell.single(i));
        }
    }

    /** Adds jars or folders to what cells can use (compiler and class loader). */
    public void addToClasspath(String path) {
        List<String> added = new ArrayList<>();
        for (String entry : path.split(File.pathSeparator)) {
            if (!entry.isBlank() && classPath.add(new File(entry).getAbsolutePath())) {
                added.add(new File(entry).getAbsolutePath());
            }
        }
        if (!added.isEmpty()) {
            // One call: each call makes JShell re-index the whole class path for completion.
            shell.addToClasspath(String.join(File.pathSeparator, added));
        }
    }

    /** The class path cells are compiled against, in the order it was given. */
    public List<String> classPath() {
        return List.copyOf(classPath);
    }

    /**
     * Runs {@code setup} on each cell's thread before the cell (rank engines only: see {@link #startForRank};
     * each cell runs on a fresh thread, so per-thread state such as the CUDA current device is set there).
     */
    public void onCellThread(Runnable setup) {
        provider.control().onCellThread(setup);
    }

    /** The class loader that defines the cells' classes. */
    public ClassLoader cellClassLoader() {
        return provider.classLoader();
    }

    /**
     * Completion and documentation, as JShell offers them; also what splits cells into snippets. Made on first
     * use, after the class path (see {@link #create}).
     */
    public SourceCodeAnalysis analysis() {
        synchronized (analysisLock) {
            if (analysis == null) {
                analysis = shell.sourceCodeAnalysis();
            }
            return analysis;
        }
    }

    /** Evaluates one cell and returns its value, or throws the first error. Not for two threads at once. */
    public CellValue eval(String cell) throws CellError {
        return eval(split(cell, 1));
    }

    /** As {@link #eval(String)}, for code that starts on notebook line {@code firstLine} (after magics). */
    public CellValue eval(String cell, int firstLine) throws CellError {
        return eval(split(cell, firstLine));
    }

    /** Tab completion at {@code at} against this evaluator's state; null when there is nothing to offer. */
    public Completion complete(String code, int at) {
        return Completion.of(analysis(), code, at);
    }

    /** Shift-Tab: the signature and documentation of what the cursor is on; null when there is none. */
    public String inspect(String code, int at) {
        return Completion.inspect(analysis(), code, at);
    }

    /**
     * Cuts a cell into JShell snippets (JShell's completeness analysis: syntax only, so the pieces can be
     * evaluated by another evaluator, e.g. on a rank engine).
     *
     * @param firstLine the notebook line the code starts on (2 for the body of a {@code %%mpj} cell)
     * @throws CellError (kind INCOMPLETE) when the cell ends in the middle of a statement: nothing was run; a
     *                   cell that calls System.exit is refused ({@link CellGuard})
     */
    public SplitCell split(String cell, int firstLine) throws CellError {
        CellGuard.checkNoExit(cell, firstLine); // every cell, of the kernel or of %%mpj, is split here before it runs
        List<SplitCell.Part> parts = new ArrayList<>();
        String rest = cell;
        while (true) {
            SourceCodeAnalysis.CompletionInfo info = analysis().analyzeCompletion(rest);
            if (!info.completeness().isComplete()) {
                if (info.completeness() != Completeness.EMPTY) {
                    throw new CellError(CellError.Kind.INCOMPLETE, "IncompleteInput",
                            "the cell ends in the middle of a statement (a missing ';', ')' or '}'?)",
                            List.of("Incomplete input:", info.remaining().strip()));
                }
                return new SplitCell(cell, firstLine, parts);
            }
            parts.add(new SplitCell.Part(cell.length() - rest.length(), info.source()));
            rest = info.remaining();
        }
    }

    /** Evaluates a cell already split into snippets; returns the last snippet's value or throws the first error. */
    public synchronized CellValue eval(SplitCell cell) throws CellError {
        stopRequested = false;
        running = true;
        places.cellStarted();
        try {
            CellValue value = CellValue.NONE;
            for (SplitCell.Part part : cell.parts()) {
                if (stopRequested) {
                    throw CellErrors.interrupted();
                }
                value = evalSnippet(cell, part);
            }
            return value;
        } finally {
            running = false;
        }
    }

    private CellValue evalSnippet(SplitCell cell, SplitCell.Part part) throws CellError {
        // A snippet starts with the blank lines before it; JShell numbers a snippet's lines from its first
        // non-blank line whatever comes before, so they go: line 1 of the snippet is then its first line of code.
        String source = part.source();
        int lead = 0;
        for (int i = 0; i < source.length() && Character.isWhitespace(source.charAt(i)); i++) {
            if (source.charAt(i) == '\n') {
                lead = i + 1;
            }
        }
        int firstLine = cell.lineAt(part.offset() + lead);
        places.running(firstLine);
        List<SnippetEvent> events;
        try {
            events = shell.eval(source.substring(lead));
        } finally {
            places.running(0);
        }
        for (SnippetEvent event : events) {
            if (event.causeSnippet() == null) {
                places.put(event.snippet(), firstLine);
            }
        }
        String refused = provider.loader().takeRefusal();
        if (refused != null) {
            for (SnippetEvent event : events) {
                if (event.causeSnippet() == null) shell.drop(event.snippet());   // never half-defined
            }
            throw new CellError(CellError.Kind.EXCEPTION, "NotAllowedInCell", refused, List.of("cell line " + firstLine
                    + ": " + source.substring(lead).strip().lines().findFirst().orElse("")));
        }
        if (provider.control().takeStopped()) {
            throw CellErrors.interrupted();
        }
        CellValue value = CellValue.NONE;
        for (SnippetEvent event : events) {
            if (event.causeSnippet() != null) {
                continue; // a dependent snippet re-evaluated because of this one
            }
            if (event.exception() != null) {
                throw errors.fromException(event.exception());
            }
            if (!event.status().isDefined()) {
                throw errors.compileError(event.snippet(), firstLine);
            }
            value = valueOf(event);
        }
        return value;
    }

    private CellValue valueOf(SnippetEvent event) {
        Snippet snippet = event.snippet();
        switch (snippet.subKind()) {
            case TEMP_VAR_EXPRESSION_SUBKIND:
                return CellValue.of(raw((VarSnippet) snippet));
            case VAR_VALUE_SUBKIND:
            case ASSIGNMENT_SUBKIND: {
                String name = ((ExpressionSnippet) snippet).name();
                return shell.variables().filter(v -> v.name().equals(name))
                        .filter(v -> shell.status(v).isActive())
                        .reduce((a, b) -> b)
                        .map(v -> CellValue.of(raw(v)))
                        .orElse(CellValue.of(event.value()));
            }
            case OTHER_EXPRESSION_SUBKIND:
                return CellValue.of(event.value());
            default:
                return CellValue.NONE;
        }
    }

    private Object raw(VarSnippet var) {
        return provider.control().take(shell.varValue(var));
    }

    /**
     * Stops the running cell (from another thread): it ends with an {@link CellError.Kind#INTERRUPTED} error.
     * JShell ignores a stop that comes while a snippet is being compiled rather than run, so the stop is repeated
     * until the cell has ended or {@code patience} has passed. Returns whether the cell ended.
     */
    public boolean stop(java.time.Duration patience) {
        stopRequested = true;
        long deadline = System.nanoTime() + patience.toNanos();
        while (running) {
            shell.stop();
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(20);       // a period, not a poll: the stop itself is sent again, not only the end looked for
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return !running;
            }
        }
        return true;
    }

    /**
     * Where the running cell's thread is: the MPI or toolkit call it waits in and the cell line that made it
     * ({@code Allreduce (cell line 5)}, {@code allReduce #12 (cell line 5)}), or null when no cell runs.
     */
    public WaitPlace.Place where() {
        CellExecutionControl control = provider.control();
        Thread t = control == null ? null : control.cellThread();
        return t == null ? null : WaitPlace.of(t, places::line);
    }

    /** Whether a cell is being evaluated now. */
    public boolean isRunning() {
        return running;
    }

    private volatile boolean stopRequested;
    private volatile boolean running;

    /** Whether the code is complete ("complete"), needs more lines (an indent) or cannot be parsed ("invalid"). */
    public String isComplete(String code) {
        String rest = code;
        while (true) {
            SourceCodeAnalysis.CompletionInfo info = analysis().analyzeCompletion(rest);
            switch (info.completeness()) {
                case EMPTY:
                    return "complete";
                case COMPLETE:
                case COMPLETE_WITH_SEMI:
                    rest = info.remaining();
                    continue;
                case DEFINITELY_INCOMPLETE:
                case CONSIDERED_INCOMPLETE:
                    return "    ";
                default:
                    return "invalid";
            }
        }
    }

    @Override
    public void close() {
        shell.close();
    }
}
