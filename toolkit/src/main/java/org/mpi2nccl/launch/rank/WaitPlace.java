package org.mpi2nccl.launch.rank;

import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.CollectiveInProgress;

import java.util.function.Function;

/**
 * Where a rank's thread is, in a student's words: the MPI or toolkit call its program is in and the program line
 * that made it ({@code Allreduce (at Sum.main(Sum.java:12))}, {@code allReduce #12 (cell line 5)}: a call of the
 * toolkit's communicators is numbered), or just the line when it runs its own code. What a stall report says about each rank.
 */
public final class WaitPlace {
    private WaitPlace() {
    }

    /** Classes of the communication layers: MPJ's API and devices, and the toolkit's communicators. */
    static boolean isCommunication(String className) {
        return className.startsWith("mpi.") || className.startsWith("mpjdev.") || className.startsWith("xdev.")
                || className.startsWith("mpjbuf.") || className.startsWith("org.mpi2nccl.comm.");
    }

    /**
     * Where {@code thread} is, as {@link #of(StackTraceElement[], Function)} says from its stack; in a call of the
     * toolkit's communicators, with the call's sequence number ({@code allReduce #12}), which the stack cannot
     * show: two ranks in allReduce #12 and #13 are in different calls (one skipped one).
     */
    public static Place of(Thread thread, Function<StackTraceElement, String> line) {
        Place place = of(thread.getStackTrace(), line);
        CollectiveCall call = CollectiveInProgress.of(thread);
        if (place == null || call == null || !place.inCommunication() || place.call() == null) return place;
        String numbered = call.collective().label() + " #" + call.seq();
        // the program called the communicator itself, or code of its own (a training step) that did
        String name = place.call().equals(call.collective().label()) ? numbered : place.call() + " in " + numbered;
        return new Place(name, place.line(), true);
    }

    /**
     * The place of {@code stack}'s thread: the call the program made (the frame just above the program's own
     * first frame from the top) and the program line, written by {@code line} (a frame to "at Foo.java:9" or
     * "cell line 5"; null for frames that are not the program's). {@code inCommunication} tells whether that
     * call is MPI's or a communicator's. Empty stack: null.
     */
    public static Place of(StackTraceElement[] stack, Function<StackTraceElement, String> line) {
        for (int i = 0; i < stack.length; i++) {
            String at = line.apply(stack[i]);
            if (at == null) continue;
            if (i == 0) return new Place(null, at, false);
            // The outermost frame of the call, from the program's side: the method the program called.
            StackTraceElement call = stack[i - 1];
            boolean comm = false;
            for (int j = i - 1; j >= 0; j--) {
                if (isCommunication(stack[j].getClassName())) {
                    comm = true;
                    break;
                }
            }
            return new Place(callName(call), at, comm);
        }
        return stack.length == 0 ? null : new Place(callName(stack[0]), "", isCommunication(stack[0].getClassName()));
    }

    /** "Allreduce" for MPJ and the toolkit's communicators, "Thread.sleep" for anything else. */
    static String callName(StackTraceElement e) {
        String c = e.getClassName();
        if (c.startsWith("mpi.") || c.startsWith("org.mpi2nccl.comm.")) return e.getMethodName();
        return c.substring(c.lastIndexOf('.') + 1) + "." + e.getMethodName();
    }

    /** A place: {@code call} the program is in (null: its own code), at {@code line}. */
    public record Place(String call, String line, boolean inCommunication) {
        /** "Allreduce (cell line 5)", "cell line 5", "Thread.sleep". */
        public String describe() {
            if (call == null) return line;
            return line.isEmpty() ? call : call + " (" + line + ")";
        }
    }
}
