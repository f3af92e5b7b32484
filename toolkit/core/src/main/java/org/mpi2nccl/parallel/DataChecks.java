package org.mpi2nccl.parallel;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;

/**
 * Checks the ranks agree on before training starts, so that a problem on one rank becomes a clear error on
 * every rank instead of a collective that waits forever for the rank that is missing. Each check is one
 * all-gather of a short status over a host communicator (MPJ).
 */
public final class DataChecks {
    private DataChecks() {}

    /** Longest message a rank sends about its failure (UTF-8 bytes). */
    static final int MESSAGE_BYTES = 240;

    /**
     * Runs {@code load} on every rank (e.g. reading the data set from this rank's disk) and fails on every
     * rank, naming the ranks and their reasons, when it failed on any. Collective.
     */
    public static <T> T onEveryRank(Communicator host, String what, Supplier<T> load) {
        T value = null;
        String failure = null;
        try {
            value = load.get();
        } catch (RuntimeException e) {
            failure = e.getMessage() == null ? e.toString() : e.getMessage();
        }
        List<String> failures = gatherFailures(host, failure);
        if (!failures.isEmpty()) {
            throw new IllegalStateException(what + " failed before training started on " + String.join("; ", failures));
        }
        return value;
    }

    /** Fails on every rank when the ranks see different values of {@code value} (e.g. data set sizes). Collective. */
    public static void sameOnEveryRank(Communicator host, String what, long value) {
        long[] all = new long[host.size()];
        host.allGather(HostBuffer.of(new long[] {value}), HostBuffer.of(all));
        for (int r = 1; r < all.length; r++) {
            if (all[r] != all[0]) {
                StringBuilder b = new StringBuilder(what + " differs between ranks:");
                for (int q = 0; q < all.length; q++) b.append(" rank ").append(q).append(' ').append(all[q]).append(q + 1 < all.length ? "," : "");
                throw new IllegalStateException(b + ". Every rank must read the same data (same folder contents, same limits).");
            }
        }
    }

    /** "rank r: message" for every rank that passed a non-null failure. */
    private static List<String> gatherFailures(Communicator host, String failure) {
        byte[] mine = new byte[MESSAGE_BYTES + 1];
        if (failure != null) {
            byte[] text = failure.getBytes(StandardCharsets.UTF_8);
            mine[0] = 1;
            System.arraycopy(text, 0, mine, 1, Math.min(text.length, MESSAGE_BYTES));
        }
        byte[] all = new byte[mine.length * host.size()];
        host.allGather(HostBuffer.of(mine), HostBuffer.of(all));
        List<String> out = new ArrayList<>();
        for (int r = 0; r < host.size(); r++) {
            int base = r * mine.length;
            if (all[base] == 0) continue;
            int end = base + 1;
            while (end < base + mine.length && all[end] != 0) end++;
            out.add("rank " + r + ": " + new String(all, base + 1, end - base - 1, StandardCharsets.UTF_8));
        }
        return out;
    }

    /** The per-rank batch for a global batch of {@code globalBatch} split over {@code ranks}; errors name the fix. */
    public static int perRankBatch(int globalBatch, int ranks) {
        if (globalBatch < ranks) {
            throw new IllegalArgumentException("batch size " + globalBatch + " is smaller than the number of ranks (" + ranks
                    + "): every rank needs at least one example per step; use a batch of at least " + ranks + " or fewer ranks");
        }
        if (globalBatch % ranks != 0) {
            throw new IllegalArgumentException("batch size " + globalBatch + " does not divide over " + ranks + " ranks; use a"
                    + " multiple of " + ranks + " (e.g. " + (globalBatch / ranks * ranks) + ") so that every rank's share is equal");
        }
        return globalBatch / ranks;
    }

    /** NCCL runs one rank per GPU: fails when there are more ranks than GPUs. */
    public static void ranksFitGpus(int ranks, int gpus) {
        if (ranks > gpus) {
            throw new IllegalArgumentException("the NCCL route runs one rank per GPU, but " + ranks + " ranks were asked for and "
                    + (gpus == 0 ? "no GPU is usable here" : "only " + gpus + " GPU" + (gpus == 1 ? " is" : "s are") + " present")
                    + ": use at most " + gpus + " ranks for NCCL, or the MPI route");
        }
    }
}
