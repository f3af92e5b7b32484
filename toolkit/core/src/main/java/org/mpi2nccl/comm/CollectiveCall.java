package org.mpi2nccl.comm;

import java.util.Arrays;

/**
 * What one rank is about to do: the collective, its sequence number on this communicator, element count,
 * type, reduction and root. Before each collective the ranks exchange these few numbers and compare them
 * ({@link MetadataCheck}): a mismatch becomes a {@link CollectiveMismatchException} naming both sides
 * instead of a hang (Horovod's coordinator and PyTorch's TORCH_DISTRIBUTED_DEBUG do the same).
 *
 * @param count elements per rank as the caller passed them (allGather: the send count; reduceScatter: the
 *              receive count)
 * @param op    the reduction, or null for collectives without one
 * @param root  the root rank, or -1
 */
public record CollectiveCall(Collective collective, long seq, long count, DataType type, Reduction op, int root) {

    /** Number of longs in {@link #encode()}. */
    public static final int WORDS = 6;

    public long[] encode() {
        return new long[] {collective.ordinal(), seq, count, type == null ? -1 : type.ordinal(),
                op == null ? -1 : op.ordinal(), root};
    }

    public static CollectiveCall decode(long[] w, int at) {
        Collective c = Collective.values()[(int) w[at]];
        DataType t = w[at + 3] < 0 ? null : DataType.values()[(int) w[at + 3]];
        Reduction op = w[at + 4] < 0 ? null : Reduction.values()[(int) w[at + 4]];
        return new CollectiveCall(c, w[at + 1], w[at + 2], t, op, (int) w[at + 5]);
    }

    /** "allReduce #12 (1048576 x float32, sum)". */
    public String describe() {
        StringBuilder s = new StringBuilder(collective.label()).append(" #").append(seq);
        if (collective != Collective.BARRIER && collective != Collective.SPLIT) {
            s.append(" (").append(count).append(" x ").append(type == null ? "?" : type.label());
            if (op != null) {
                s.append(", ").append(op.label());
            }
            if (root >= 0) {
                s.append(", root ").append(root);
            }
            s.append(')');
        }
        return s.toString();
    }

    /**
     * Compares the calls of all ranks ({@code all[r]} is rank r's) and throws if any differs from rank
     * {@code me}'s own call; the message names both ranks and both calls.
     */
    public static void requireSame(int me, CollectiveCall[] all) {
        CollectiveCall mine = all[me];
        for (int r = 0; r < all.length; r++) {
            if (r != me && !Arrays.equals(all[r].encode(), mine.encode())) {
                throw new CollectiveMismatchException("rank " + me + ": collective mismatch: this rank called "
                        + mine.describe() + " but rank " + r + " called " + all[r].describe()
                        + hint(mine, all[r]) + ". Every rank must make the same collective calls in the same order"
                        + " with the same sizes.");
            }
        }
    }

    private static String hint(CollectiveCall a, CollectiveCall b) {
        if (a.seq != b.seq) {
            return " (different sequence numbers: one rank skipped or added a collective)";
        }
        if (a.collective != b.collective) {
            return " (different collectives at the same position: the ranks' code paths diverged)";
        }
        if (a.count != b.count) {
            return " (different element counts: check the tensor shapes on each rank)";
        }
        if (a.type != b.type) {
            return " (different element types)";
        }
        if (a.op != b.op) {
            return " (different reductions)";
        }
        return " (different roots)";
    }
}
