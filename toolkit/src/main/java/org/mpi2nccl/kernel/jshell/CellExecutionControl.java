package org.mpi2nccl.kernel.jshell;

import jdk.jshell.execution.LocalExecutionControl;
import jdk.jshell.spi.ExecutionControl;
import jdk.jshell.spi.ExecutionControlProvider;
import jdk.jshell.spi.ExecutionEnv;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs cells in this JVM (JShell's "local" engine) and hands the evaluator the cell's value as an object.
 *
 * <p>In this JVM, because a cell's {@code display(x)} must reach the kernel's Jupyter connection and a rank
 * cell's {@code MPI} must be the rank's own. {@link LocalExecutionControl} runs each snippet on its own thread
 * and knows how to stop it on every JDK we support (Thread.stop on 17, stop checks woven into the snippet's
 * byte code on 21+). JShell itself only hands out a value's {@code toString()}; to render charts and tables the
 * evaluator needs the object: {@link #varValue} keeps it aside under a key, {@link #take} gives it back.
 */
final class CellExecutionControl extends LocalExecutionControl {
    private final Map<String, Object> values = new ConcurrentHashMap<>();
    private final AtomicLong nextKey = new AtomicLong();

    /** The thread group cells run in, or null for JShell's own (see {@link Provider#Provider}). */
    private final ThreadGroup runIn;
    private boolean primed;
    private volatile Thread cellThread;
    private volatile Runnable threadSetup;

    private CellExecutionControl(SnippetLoader loader, ThreadGroup runIn) {
        super(loader);
        this.runIn = runIn;
    }

    @Override
    public String varValue(String className, String varName) throws RunException, EngineTerminationException,
            InternalException {
        try {
            java.lang.reflect.Field field = findClass(className).getField(varName);
            field.setAccessible(true); // cells' wrapper classes are not public
            Object value = field.get(null);
            String key = "value#" + nextKey.incrementAndGet();
            values.put(key, value == null ? NULL : value);
            return key;
        } catch (ReflectiveOperationException ex) {
            throw new InternalException("cannot read " + varName + ": " + ex);
        }
    }

    /**
     * JShell swallows a stop (the snippet just ends, no error): remember it so the evaluator can end the whole cell
     * with an "interrupted" error instead of going on with the next snippet.
     */
    @Override
    protected String invoke(java.lang.reflect.Method doitMethod) throws Exception {
        if (runIn == null || !primed) {
            // JShell's own snippet thread. The first run also sets up JShell's stop machinery (JDK 21+),
            // which runs in a group of our own below reuse.
            primed = true;
            try {
                return super.invoke(doitMethod);
            } catch (StoppedException ex) {
                stopped = true;
                throw ex;
            }
        }
        return invokeInGroup(doitMethod);
    }

    /**
     * Runs the cell on a thread of {@link #runIn}. MPJ's multicore device knows which rank is calling from the
     * caller's thread group, which must be the rank's own: JShell's fresh group would make every MPI call fail.
     */
    private String invokeInGroup(java.lang.reflect.Method doitMethod) throws Exception {
        resetWovenStopFlag();
        java.util.concurrent.atomic.AtomicReference<Object> result = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        Runnable setup = threadSetup;
        Thread thread = new Thread(runIn, () -> {
            try {
                if (setup != null) {
                    setup.run();
                }
                result.set(doitMethod.invoke(null));
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "cell");
        thread.setContextClassLoader(doitMethod.getDeclaringClass().getClassLoader());
        cellThread = thread;
        thread.start();
        try {
            thread.join();
        } finally {
            cellThread = null;
        }
        Throwable f = failure.get();
        if (f == null) {
            return valueString(result.get());
        }
        Throwable cause = f instanceof java.lang.reflect.InvocationTargetException ? f.getCause() : f;
        if (isStop(cause)) {
            stopped = true;
            throw new StoppedException();
        }
        if (f instanceof java.lang.reflect.InvocationTargetException) {
            throw (java.lang.reflect.InvocationTargetException) f;
        }
        throw new InternalException("the cell could not be run: " + f);
    }

    @SuppressWarnings({"removal", "deprecation"})
    private static boolean isStop(Throwable t) {
        return t instanceof ThreadDeath;
    }

    /** JDK 21+: JShell weaves stop checks reading REPL.$Cancel$.allStop into cells; clear it before a run. */
    private void resetWovenStopFlag() {
        try {
            findClass("REPL.$Cancel$").getField("allStop").setBoolean(null, false);
        } catch (ReflectiveOperationException | RuntimeException ex) {
            // JDK 17: no woven checks, cells are stopped with Thread.stop
        }
    }

    @Override
    @SuppressWarnings("removal")
    public void stop() throws EngineTerminationException, InternalException {
        try {
            super.stop(); // JShell's own thread, and on JDK 21+ the woven stop flag
        } catch (InternalException ex) {
            // no JShell-run snippet yet: nothing of JShell's to stop
        }
        Thread t = cellThread;
        if (t != null) {
            if (Runtime.version().feature() < 20) {
                t.stop(); // JDK 17: the only way to end a loop that never looks at its interrupt flag
            } else {
                t.interrupt(); // wakes a waiting cell; the woven checks end a running one
            }
        }
    }

    /** Runs at the start of every cell thread of {@link #runIn} (e.g. to make the rank's GPU current there). */
    /** The thread running the cell now, or null. */
    Thread cellThread() {
        return cellThread;
    }

    void onCellThread(Runnable setup) {
        this.threadSetup = setup;
    }

    /** Whether the last snippet was stopped; clears the mark. */
    boolean takeStopped() {
        boolean s = stopped;
        stopped = false;
        return s;
    }

    private volatile boolean stopped;

    /** The object stored under a key returned by {@link #varValue}; null for a Java {@code null}. */
    Object take(String key) {
        Object v = values.remove(key);
        return v == NULL ? null : v;
    }

    private static final Object NULL = new Object();

    /** Hands JShell one {@link CellExecutionControl} and keeps it for the evaluator. */
    static final class Provider implements ExecutionControlProvider {
        private final SnippetLoader loader;
        private final ThreadGroup runIn;
        private volatile CellExecutionControl control;

        /**
         * @param runIn where cells run: null for JShell's own thread group, or a rank's group (MPJ multicore
         *              needs calls to come from it; the first snippet still runs in JShell's, so evaluate a
         *              declaration without MPI calls first)
         */
        Provider(ClassLoader parent, Set<String> visibleThroughParent, ThreadGroup runIn) {
            this.loader = new SnippetLoader(parent, visibleThroughParent);
            this.runIn = runIn;
        }

        @Override
        public String name() {
            return "mpi2nccl-cell";
        }

        @Override
        public ExecutionControl generate(ExecutionEnv env, Map<String, String> parameters) {
            control = new CellExecutionControl(loader, runIn);
            return control;
        }

        CellExecutionControl control() {
            return control;
        }

        ClassLoader classLoader() {
            return loader.classLoader();
        }

        SnippetLoader loader() {
            return loader;
        }
    }
}
