package org.mpi2nccl.comm;

/** The operations of the {@link Communicator} interface, as named in error messages and benchmark tables. */
public enum Collective {
    ALL_REDUCE("allReduce"),
    BROADCAST("broadcast"),
    REDUCE("reduce"),
    ALL_GATHER("allGather"),
    REDUCE_SCATTER("reduceScatter"),
    SEND_RECV("sendRecv"),
    BARRIER("barrier"),
    SPLIT("split");

    private final String label;

    Collective(String label) {
        this.label = label;
    }

    /** The method name on {@link Communicator} ("allReduce"). */
    public String label() {
        return label;
    }

    /** Parses a label ("allReduce", "all_reduce", "allreduce"; any case). */
    public static Collective parse(String s) {
        String k = s.trim().replace("_", "").replace("-", "");
        for (Collective c : values()) {
            if (c.label.equalsIgnoreCase(k)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown collective '" + s
                + "': use allReduce, broadcast, reduce, allGather, reduceScatter, sendRecv or barrier");
    }
}
