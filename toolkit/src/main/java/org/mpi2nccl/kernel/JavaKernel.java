package org.mpi2nccl.kernel;

import org.mpi2nccl.kernel.output.CellOutput;
import org.mpi2nccl.kernel.output.Display;
import org.mpi2nccl.kernel.jshell.CommonImports;
import org.mpi2nccl.kernel.jshell.ExitWatch;
import io.github.spencerpark.jupyter.kernel.BaseKernel;
import io.github.spencerpark.jupyter.kernel.LanguageInfo;
import io.github.spencerpark.jupyter.kernel.ReplacementOptions;
import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import io.github.spencerpark.jupyter.kernel.magic.registry.Magics;
import io.github.spencerpark.jupyter.kernel.magic.registry.UndefinedMagicException;
import org.mpi2nccl.kernel.jshell.CellError;
import org.mpi2nccl.kernel.jshell.CellValue;
import org.mpi2nccl.kernel.jshell.Completion;
import org.mpi2nccl.kernel.jshell.JShellEvaluator;
import org.mpi2nccl.kernel.magic.ClasspathMagics;
import org.mpi2nccl.kernel.magic.HabitMagics;
import org.mpi2nccl.kernel.magic.MagicCell;
import org.mpi2nccl.kernel.magic.MpjMagics;

import java.io.File;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;

/**
 * The project's Java kernel for Jupyter, on basekernel (the library IJava is built on) and with IJava's habits:
 * cells are Java evaluated by JShell with the toolkit on the class path, the last expression is the cell's result
 * (charts, tables and images shown as such), {@code %jars}/{@code %classpath} add jars, and {@code %mpj}/
 * {@code %%mpj} run cells on MPJ rank engines.
 */
public final class JavaKernel extends BaseKernel {
    static final Duration STOP_PATIENCE = Duration.ofSeconds(5);

    private final CompletableFuture<JShellEvaluator> evaluator;
    private final Magics magics = new Magics();
    private final MpjMagics mpj;
    private final List<String> addedClassPath = new ArrayList<>();
    private final LanguageInfo languageInfo = new LanguageInfo.Builder("Java")
            .version(Runtime.version().toString())
            .mimetype("text/x-java-source")
            .fileExtension(".jshell")
            .pygments("java")
            .codemirror("text/x-java")
            .build();

    /**
     * @param log where the kernel writes what belongs to no cell (the process's own stderr, the Jupyter
     *            server's log)
     */
    public JavaKernel(PrintStream log) {
        this.renderer = Display.renderer();
        List<String> classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(s -> !s.isBlank()).collect(Collectors.toList());
        // Starting JShell (its compiler and the imports) is most of the kernel's start: do it while Jupyter connects.
        // results/kernel-startup has the start-up times.
        this.evaluator = CompletableFuture.supplyAsync(() -> {
            try {
                return JShellEvaluator.start(ClassLoader.getSystemClassLoader(), classPath, CommonImports.KERNEL);
            } catch (CellError e) {
                throw new IllegalStateException("JShell did not start: " + e.getMessage(), e);
            }
        });
        Display.install(new JupyterDisplaySink(getIO()));
        ClasspathMagics cp = new ClasspathMagics(this::addToClassPath, () -> shell().classPath());
        this.mpj = new MpjMagics((code, firstLine) -> shell().split(code, firstLine), () -> List.copyOf(addedClassPath), log,
                () -> getIO().display);
        magics.registerLineMagic("jars", cp::jars);
        magics.registerLineMagic("classpath", cp::classpath);
        magics.registerLineMagic("mpj", mpj::line);
        magics.registerCellMagic("mpj", (args, body) -> mpj.cell(args, body, System.out, System.err));
        HabitMagics.register(magics, this::addToClassPath, code -> run(code), renderer, getIO().display);
    }

    private JShellEvaluator shell() {
        try {
            return evaluator.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while JShell was starting");
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        }
    }

    private void addToClassPath(List<String> entries) {
        shell().addToClasspath(String.join(File.pathSeparator, entries)); // one call: JShell re-indexes on each
        addedClassPath.addAll(entries);
        try {
            mpj.addClassPath(entries);
        } catch (CellError e) {
            throw new IllegalStateException("the jars were added here but not on the rank engines: " + e.getMessage());
        }
    }

    /** The %mpj magics (tests reach the engines through them). */
    public MpjMagics mpj() {
        return mpj;
    }

    @Override
    public LanguageInfo getLanguageInfo() {
        return languageInfo;
    }

    @Override
    public String getBanner() {
        return "Java " + Runtime.version() + " (mpi2nccl kernel: JShell, the toolkit, %mpj rank engines)";
    }

    @Override
    public DisplayData eval(String code) throws Exception {
        PrintStream out = System.out, err = System.err;
        CellValue value;
        // the cell's prints, and its %%mpj ranks', go out coalesced and capped (CellOutput); the cell's own
        // PrintStream flushes on its own schedule, so what the cell printed last is sent before the reply
        try (CellOutput cell = new CellOutput(out, err, CellOutput.SHOWN_BYTES)) {
            System.setOut(cell.out());
            System.setErr(cell.err());
            ExitWatch.cellStarts(why -> {   // the JVM is ending under this cell: say so in it before it goes
                cell.err().println("The kernel is ending: " + why + ".");
                cell.err().flush();
                err.flush();
                sleepQuietly(300);           // the message travels on the kernel's own threads
            });
            try {
                value = run(code);
            } finally {
                ExitWatch.cellEnded();
                cell.out().flush();
                cell.err().flush();
                System.setOut(out);
                System.setErr(err);
            }
        }
        if (!value.present() || value.value() instanceof java.io.PrintStream) {
            return null; // a cell ending in System.out.printf(...) returns the stream: not worth showing
        }
        return Display.render(value.value());
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs a cell: a cell magic, or code and line magics in order; the value of the last part is the cell's. */
    CellValue run(String code) throws Exception {
        MagicCell.CellMagic cellMagic = MagicCell.cellMagic(code);
        if (cellMagic != null) {
            return magicValue(magic(() -> magics.applyCellMagic(cellMagic.name(), cellMagic.args(), cellMagic.body()),
                    "%%" + cellMagic.name()));
        }
        CellValue value = CellValue.NONE;
        List<MagicCell.Part> parts = MagicCell.parts(code);
        MpjMagics.refuseLineFormWithCode(parts);
        for (MagicCell.Part part : parts) {
            if (part instanceof MagicCell.Code) {
                MagicCell.Code c = (MagicCell.Code) part;
                value = shell().eval(c.source(), c.firstLine());
            } else {
                MagicCell.LineMagic m = (MagicCell.LineMagic) part;
                value = magicValue(magic(() -> magics.applyLineMagic(m.name(), m.args()), "%" + m.name()));
            }
        }
        return value;
    }

    private interface MagicCall {
        Object call() throws Exception;
    }

    private static Object magic(MagicCall call, String name) throws Exception {
        try {
            return call.call();
        } catch (UndefinedMagicException e) {
            throw new IllegalArgumentException("unknown magic " + name + ": this kernel has %jars, %classpath, "
                    + HabitMagics.NAMES + ", %mpj and %%mpj");
        }
    }

    private static CellValue magicValue(Object value) {
        return value == null ? CellValue.NONE : CellValue.of(value);
    }

    @Override
    public List<String> formatError(Exception e) {
        if (e instanceof CellError) {
            CellError c = (CellError) e;
            List<String> lines = new ArrayList<>();
            if (c.kind() != CellError.Kind.COMPILE) {
                lines.add(c.name() + ": " + c.getMessage());
            }
            for (String l : c.traceback()) {
                if (!l.equals(lines.isEmpty() ? null : lines.get(0))) {
                    lines.add(l);
                }
            }
            return lines;
        }
        if (e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
            return List.of(e.getMessage().split("\n")); // a message meant for the student: no stack trace
        }
        return super.formatError(e);
    }

    @Override
    public String isComplete(String code) {
        if (code.startsWith("%")) {
            return IS_COMPLETE_YES;
        }
        return evaluator.isDone() ? shell().isComplete(code) : IS_COMPLETE_MAYBE;
    }

    /**
     * Tab. In a {@code %%mpj} cell the body is completed against rank 0's state (its cells' variables), the
     * cursor taken past the magic's line; without engines, or when rank 0 has nothing, against the kernel's.
     */
    @Override
    public ReplacementOptions complete(String code, int at) {
        int body = mpjBodyStart(code);
        Completion c = null;
        if (body >= 0) {
            if (at < body) {
                return null; // on the %%mpj line itself
            }
            c = mpj.complete(code.substring(body), at - body);
            if (c == null) {
                c = shell().complete(code.substring(body), at - body);
            }
            c = c == null ? null : c.shifted(body);
        } else {
            c = shell().complete(code, at);
        }
        return c == null ? null : new ReplacementOptions(c.options(), c.anchor(), at);
    }

    /** Shift-Tab: the signature and documentation of what the cursor is on ({@code %%mpj}: as for Tab). */
    @Override
    public DisplayData inspect(String code, int at, boolean extraDetail) {
        int body = mpjBodyStart(code);
        String text;
        if (body >= 0) {
            if (at < body) {
                return null;
            }
            text = mpj.inspect(code.substring(body), at - body);
            if (text == null) {
                text = shell().inspect(code.substring(body), at - body);
            }
        } else {
            text = shell().inspect(code, at);
        }
        return text == null ? null : new DisplayData(text);
    }

    /** Where the body of a {@code %%mpj} cell starts (after its first line); -1 for any other cell. */
    static int mpjBodyStart(String code) {
        MagicCell.CellMagic m = MagicCell.cellMagic(code);
        int newline = code.indexOf('\n');
        return m == null || !m.name().equals("mpj") || newline < 0 ? -1 : newline + 1;
    }

    @Override
    public void interrupt() {
        if (!mpj.interrupt() && evaluator.isDone()) {
            shell().stop(STOP_PATIENCE);
        }
    }

    @Override
    public void onShutdown(boolean isRestarting) {
        shutdownEngines();
        if (evaluator.isDone()) {
            shell().close();
        }
    }

    /** Stops every rank engine (shutdown, and the JVM's shutdown hook). */
    public void shutdownEngines() {
        mpj.stopAll();
    }
}
