package org.mpi2nccl.comm;

/**
 * How the values of all ranks are combined. {@code AVG} is {@code SUM} divided by the number of ranks
 * (integer division for integer types), as NCCL's {@code ncclAvg}.
 */
public enum Reduction {
    SUM, AVG, MAX, MIN, PROD;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Parses "sum", "avg", "max", "min", "prod" (any case). */
    public static Reduction parse(String s) {
        for (Reduction op : values()) {
            if (op.name().equalsIgnoreCase(s.trim())) {
                return op;
            }
        }
        throw new IllegalArgumentException("unknown reduction '" + s + "': use sum, avg, max, min or prod");
    }
}
