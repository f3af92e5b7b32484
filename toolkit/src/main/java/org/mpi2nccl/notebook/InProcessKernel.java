package org.mpi2nccl.notebook;

import io.github.spencerpark.jupyter.channels.ShellReplyEnvironment;
import io.github.spencerpark.jupyter.kernel.BaseKernel;
import io.github.spencerpark.jupyter.messages.Message;
import io.github.spencerpark.jupyter.messages.request.ExecuteRequest;
import org.mpi2nccl.kernel.JavaKernel;

import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The project's Jupyter kernel ({@link JavaKernel}: JShell, the magics, {@code %mpj} rank engines) in this JVM,
 * fed execute requests without Jupyter. Each cell goes through the kernel's own execute handler (basekernel's:
 * execution count, the cell's streams, the result, the error as the kernel formats it), so a notebook run here
 * gets the outputs a Jupyter front end would get. Only the wire is missing: messages go to {@link CellOutputs}.
 *
 * <p>basekernel keeps its execute handler private and hands it only to a ZeroMQ connection; it is taken by
 * reflection (basekernel 2.3.0, the version in pom.xml), which fails at start with a clear message if a future
 * version renames it.
 */
final class InProcessKernel implements AutoCloseable {
    /** How long a cell that ran past its limit gets to stop after the interrupt before the kernel is given up. */
    static final Duration INTERRUPT_PATIENCE = Duration.ofSeconds(15);

    /** How a cell ended. */
    enum Outcome {
        OK, ERROR, TIMED_OUT,
        /** past its limit and deaf to the interrupt: the kernel cannot run another cell */
        STUCK
    }

    private static final Method EXECUTE = executeHandler();

    private final JavaKernel kernel;
    private final CellOutputs outputs = new CellOutputs();
    private final PrintStream stdout = System.out;
    private final PrintStream stderr = System.err;
    private final ExecutorService cellThread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "notebook-cell");
        t.setDaemon(true); // a stuck cell must not keep the JVM alive
        return t;
    });
    private boolean usable = true;
    /** basekernel counts every execute request from 1, as Jupyter shows them: In [1], In [2], ... */
    private int executionCount;

    /** {@code log}: where the kernel writes what belongs to no cell (rank engines' start-up problems). */
    InProcessKernel(PrintStream log) {
        this.kernel = new JavaKernel(log);
        Runtime.getRuntime().addShutdownHook(stopEngines);
    }

    /** A run stopped from outside (Ctrl-C, the grader's time limit) stops the rank engines too. */
    private final Thread stopEngines = new Thread(this::stopEnginesNow, "stop-rank-engines");

    private void stopEnginesNow() {
        kernel.shutdownEngines();
    }

    /** The kernel's language, as Jupyter writes it into metadata.language_info. */
    com.google.gson.JsonObject languageInfo() {
        var info = kernel.getLanguageInfo();
        com.google.gson.JsonObject o = new com.google.gson.JsonObject();
        o.addProperty("name", info.getName());
        o.addProperty("version", info.getVersion());
        o.addProperty("mimetype", info.getMimetype());
        o.addProperty("file_extension", info.getFileExtension());
        o.addProperty("pygments_lexer", info.getPygmentsLexer());
        o.addProperty("codemirror_mode", String.valueOf(info.getCodemirrorMode()));
        return o;
    }

    private static Method executeHandler() {
        try {
            Method m = BaseKernel.class.getDeclaredMethod("handleExecuteRequest", ShellReplyEnvironment.class,
                    Message.class);
            m.setAccessible(true);
            return m;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this jupyter-jvm-basekernel has no handleExecuteRequest(ShellReplyEnvironment,"
                    + " Message): notebooks cannot be executed without Jupyter with it (the toolkit is built for 2.3.0)", e);
        }
    }

    /** The execution count of the last cell run (what the notebook shows as In [n]). */
    int executionCount() {
        return executionCount;
    }

    CellOutputs outputs() {
        return outputs;
    }

    /** Runs one cell with a time limit; its outputs are in {@link #outputs()} until the next cell starts. */
    Outcome execute(String code, Duration limit) {
        if (!usable) {
            throw new IllegalStateException("the kernel is stuck in an earlier cell");
        }
        outputs.startCell();
        executionCount++;
        RecordingReplyEnvironment env = new RecordingReplyEnvironment(outputs::publish, reply -> { });
        Message<ExecuteRequest> request = new Message<>(null, ExecuteRequest.MESSAGE_TYPE,
                new ExecuteRequest(code, false, true, Map.of(), false, true));
        Future<?> cell = cellThread.submit(() -> {
            try {
                EXECUTE.invoke(kernel, env, request);
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            } catch (InvocationTargetException e) {
                throw new IllegalStateException("the kernel failed outside the cell: " + e.getCause(), e.getCause());
            } finally {
                env.resolveDeferrals(); // puts the kernel's System.out and System.err back
            }
            return null;
        });
        try {
            cell.get(Math.max(1, limit.toMillis()), TimeUnit.MILLISECONDS);
            return outputs.error() == null ? Outcome.OK : Outcome.ERROR;
        } catch (TimeoutException e) {
            kernel.interrupt(); // what Jupyter's interrupt button does: stops the cell, or the ranks' cell
            boolean stopped = waitFor(cell, INTERRUPT_PATIENCE);
            if (!stopped) {
                usable = false;
                System.setOut(stdout); // the cell thread never gave them back
                System.setErr(stderr);
            }
            outputs.addError("CellTimeoutError", "the cell ran past its " + seconds(limit) + " limit"
                    + (stopped ? " and was interrupted" : " and did not stop when interrupted: the notebook ends here"));
            return stopped ? Outcome.TIMED_OUT : Outcome.STUCK;
        } catch (ExecutionException e) {
            outputs.addError("KernelError", String.valueOf(e.getCause().getMessage()));
            return Outcome.ERROR;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kernel.interrupt();
            outputs.addError("Interrupted", "the notebook run was interrupted");
            return Outcome.ERROR;
        }
    }

    private static boolean waitFor(Future<?> cell, Duration patience) {
        try {
            cell.get(patience.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : String.format(java.util.Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }

    /** Stops the rank engines and JShell (a stuck cell's thread is left to the JVM's end: it is a daemon). */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(stopEngines);
        } catch (IllegalStateException e) {
            // the JVM is ending: the hook stops the engines
        }
        kernel.shutdownEngines();
        if (usable) {
            kernel.onShutdown(false);
        }
        cellThread.shutdownNow();
    }
}
