package org.mpi2nccl.launch.rank;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * Calls a rank program's {@code main(String[])} and tells the launcher how it ended: a {@code done} record
 * when main returns, a {@code fail} record (with the exception) when it throws.
 */
public final class RankMain {
    /** How long a failed rank's JVM lives on so that the other ranks' last lines still reach the launcher. */
    static final long FAIL_GRACE_MS = 300;

    /** Set once main returned or threw (in niodev, the JVM's one rank): an exit after that is no death. */
    private static volatile boolean ended;

    private RankMain() {}

    /** Whether a rank of this JVM has sent its done or fail record. */
    static boolean hasEnded() {
        return ended;
    }

    /** Runs {@code mainClass.main(args)} from {@code loader} on the calling thread; true when it returned. */
    public static boolean run(ClassLoader loader, String mainClass, String[] args) {
        try {
            Class<?> cls = Class.forName(mainClass, true, loader);
            Method main = cls.getMethod("main", String[].class);
            if (!Modifier.isStatic(main.getModifiers()) || main.getReturnType() != void.class) {
                throw new NoSuchMethodException(mainClass + " has no public static void main(String[])");
            }
            StallReporter.watch(Thread.currentThread());
            main.invoke(null, (Object) args);
            ended = true;
            TaggedOutput.control(Wire.Kind.DONE, "0");
            return true;
        } catch (InvocationTargetException e) {
            fail(e.getCause());
        } catch (Throwable e) {
            fail(e);
        }
        return false;
    }

    private static void fail(Throwable t) {
        TaggedOutput.endPartialLines();
        ended = true;
        RankFailureRecord record = RankFailureRecord.of(t);
        System.err.print(record.trace());   // the rank's stderr shows the trace as well
        System.err.flush();
        TaggedOutput.control(Wire.Kind.FAIL, record.toJson());
    }

    /** Stops this JVM after a rank failed: the other ranks would otherwise wait forever in a collective. */
    static void haltAfterFailure() {
        try {
            Thread.sleep(FAIL_GRACE_MS);
        } catch (InterruptedException ignored) {
            Thread.currentThread().interrupt();
        }
        System.out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(1);
    }
}
