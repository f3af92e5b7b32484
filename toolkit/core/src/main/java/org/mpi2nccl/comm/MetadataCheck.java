package org.mpi2nccl.comm;

/**
 * The cheap check before every collective: each rank sends the few numbers of its {@link CollectiveCall}
 * to every other rank and compares what it gets back. Costs one small message per peer; turns "rank 1
 * skipped a call" or "the ranks passed different sizes" into an error that names both sides, where the
 * collective itself would hang or corrupt data.
 */
public final class MetadataCheck {
    private MetadataCheck() {
    }

    /** Exchanges {@code call} with every rank over {@code transport} and throws if any rank's call differs. */
    public static void verify(Transport transport, int tag, CollectiveCall call, Deadline deadline) {
        int p = transport.size();
        int me = transport.rank();
        if (p == 1) {
            return;
        }
        long[] mine = call.encode();
        long[] all = new long[p * CollectiveCall.WORDS];
        HostBuffer out = HostBuffer.of(mine);
        Transport.Pending[] transfers = new Transport.Pending[2 * (p - 1)];
        int k = 0;
        for (int peer = 0; peer < p; peer++) {
            if (peer != me) {
                transfers[k++] = transport.irecv(HostBuffer.wrap(all, peer * CollectiveCall.WORDS, CollectiveCall.WORDS), peer, tag);
                transfers[k++] = transport.isend(out, peer, tag);
            }
        }
        for (Transport.Pending t : transfers) {
            if (!deadline.await(t::done)) {
                throw new CollectiveTimeoutException(me, call, deadline.timeout(),
                        "the metadata check: " + t.describe() + " never came");
            }
        }
        System.arraycopy(mine, 0, all, me * CollectiveCall.WORDS, CollectiveCall.WORDS);
        CollectiveCall[] calls = new CollectiveCall[p];
        for (int r = 0; r < p; r++) {
            calls[r] = CollectiveCall.decode(all, r * CollectiveCall.WORDS);
        }
        CollectiveCall.requireSame(me, calls);
    }
}
