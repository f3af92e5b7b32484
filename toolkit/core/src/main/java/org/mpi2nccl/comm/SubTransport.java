package org.mpi2nccl.comm;

/**
 * The transport of a sub-communicator made by {@code split}: ranks renumbered 0..n-1 over a subset of the
 * ranks of the root transport (the world), and a tag range of its own (its context) so that its messages
 * never match those of the world or of another sub-communicator. Splitting a sub-communicator again makes
 * a new SubTransport over the same root, so tags never nest.
 */
final class SubTransport implements Transport {
    /** Tags a communicator uses are below this; contexts are multiples of it. */
    static final int TAGS_PER_CONTEXT = 64;
    /** Largest context: keeps every tag below 2^26, well inside what MPJ Express accepts. */
    static final int MAX_CONTEXT = (1 << 20) - 1;

    private final Transport parent;
    private final int[] members;
    private final int rank;
    private final int tagBase;

    /**
     * @param parent  the root transport (never a SubTransport)
     * @param members root ranks of the members, in sub-rank order
     * @param context 1 .. {@link #MAX_CONTEXT}; 0 is the root's own
     */
    SubTransport(Transport parent, int[] members, int rank, int context) {
        if (parent instanceof SubTransport) {
            throw new IllegalArgumentException("SubTransport must wrap the root transport");
        }
        if (context < 1 || context > MAX_CONTEXT) {
            throw new IllegalArgumentException("context " + context + " out of range 1.." + MAX_CONTEXT);
        }
        this.parent = parent;
        this.members = members.clone();
        this.rank = rank;
        this.tagBase = context * TAGS_PER_CONTEXT;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return members.length;
    }

    @Override
    public String kind() {
        return parent.kind();
    }

    /** The root-transport rank of sub-rank {@code r}. */
    int rootRank(int r) {
        return members[r];
    }

    Transport root() {
        return parent;
    }

    @Override
    public Pending isend(HostBuffer buffer, int dest, int tag) {
        CommArgs.rankInRange("send", "destination", dest, members.length);
        return parent.isend(buffer, members[dest], tagBase + tag);
    }

    @Override
    public Pending irecv(HostBuffer buffer, int src, int tag) {
        CommArgs.rankInRange("recv", "source", src, members.length);
        return parent.irecv(buffer, members[src], tagBase + tag);
    }

    @Override
    public void close() {
        // The parent transport stays open: it belongs to the parent communicator.
    }
}
