package org.mpi2nccl.comm;

import java.util.List;

/**
 * The transport of a sub-communicator made by {@code split}: ranks renumbered 0..n-1 over a subset of the
 * ranks of the root transport (the world), and a tag range of its own (its context) so that its messages
 * never match those of the world or of another sub-communicator. Splitting a sub-communicator again makes
 * a new SubTransport over the same root, so tags never nest.
 */
public final class SubTransport implements Transport {
    /** Tags a communicator uses are below this; contexts are multiples of it. */
    public static final int TAGS_PER_CONTEXT = 64;
    /** Largest context: keeps every tag below 2^26, well inside what MPJ Express accepts. */
    public static final int MAX_CONTEXT = (1 << 20) - 1;

    private final Transport parent;
    private final int[] members;
    private final int rank;
    private final int tagBase;

    /**
     * @param parent  the root transport (never a SubTransport)
     * @param members root ranks of the members, in sub-rank order
     * @param context 1 .. {@link #MAX_CONTEXT}; 0 is the root's own
     */
    public SubTransport(Transport parent, int[] members, int rank, int context) {
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

    /**
     * The transport of the members of a split, seen from {@code current} (the world or a sub-communicator):
     * {@code members} are ranks of {@code current} in the new order, {@code me} this rank's place among them.
     */
    public static SubTransport of(Transport current, List<Integer> members, int me, int context) {
        Transport root = current instanceof SubTransport s ? s.root() : current;
        int[] rootRanks = members.stream().mapToInt(r -> current instanceof SubTransport s ? s.rootRank(r) : r).toArray();
        return new SubTransport(root, rootRanks, me, context);
    }

    /** A context id for a child: the same on every member (same parent, same split count, same color). */
    public static int childContext(int parentContext, int splits, int color) {
        long h = parentContext * 0x9E3779B97F4A7C15L + splits * 0xC2B2AE3D27D4EB4FL + color * 0x165667B19E3779F9L;
        h ^= (h >>> 29);
        return 1 + (int) Math.floorMod(h, (long) MAX_CONTEXT);
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
    public int rootRank(int r) {
        return members[r];
    }

    public Transport root() {
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
