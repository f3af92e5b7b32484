package org.mpi2nccl.parallel.timing;

/**
 * One event of a rank's {@link Timeline}: a phase of a training step, a bucket becoming ready, or one all-reduce.
 * Times are nanoseconds since the timeline's time zero (see {@link Timeline} on how the ranks agree on it).
 *
 * @param rank        the rank that recorded it
 * @param kind        what happened
 * @param step        the step it belongs to, from 0
 * @param bucket      the gradient bucket ({@link Kind#BUCKET_READY}, {@link Kind#ALL_REDUCE}), else -1
 * @param bytes       the bytes all-reduced ({@link Kind#ALL_REDUCE}), else 0
 * @param startNanos  when it began
 * @param endNanos    when it ended (equal to the start for an instant)
 * @param onStepThread whether it ran on the thread that runs the step (an all-reduce without overlap does)
 */
public record TimelineEvent(int rank, Kind kind, int step, int bucket, long bytes, long startNanos, long endNanos,
                            boolean onStepThread) {

    /** What an event is. */
    public enum Kind {
        FORWARD("forward"),
        BACKWARD("backward"),
        /** Instant: every gradient of a bucket is final and its all-reduce is launched. */
        BUCKET_READY("bucket ready"),
        ALL_REDUCE("all-reduce"),
        /** From the end of backward until every bucket is averaged and unpacked. */
        WAIT("wait for gradients"),
        OPTIMIZER("optimizer");

        private final String label;

        Kind(String label) {
            this.label = label;
        }

        /** The name shown in a legend or a trace viewer. */
        public String label() {
            return label;
        }
    }

    public long durationNanos() {
        return endNanos - startNanos;
    }

    /** The name a trace viewer shows: the kind, and the bucket where there is one. */
    public String name() {
        return bucket >= 0 ? kind.label() + " " + bucket : kind.label();
    }
}
