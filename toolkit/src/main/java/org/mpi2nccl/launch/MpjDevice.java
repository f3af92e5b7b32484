package org.mpi2nccl.launch;

/** The two MPJ Express devices the launcher runs. */
public enum MpjDevice {
    /**
     * Every rank is a thread of one JVM, with a class loader each; messages go through shared memory.
     * Starts fastest. A JNI library (JCuda, JavaCPP) loads in only one class loader per JVM, so GPU jobs
     * cannot use it.
     */
    MULTICORE("multicore"),
    /** Every rank is its own JVM, started by an MPJ daemon (one per host); messages go over TCP (Java NIO). */
    NIODEV("niodev");

    private final String mpjName;

    MpjDevice(String mpjName) {
        this.mpjName = mpjName;
    }

    /** The name MPJ Express uses ({@code -dev multicore|niodev}). */
    public String mpjName() {
        return mpjName;
    }

    /** Parses "multicore" or "niodev" (any case). */
    public static MpjDevice parse(String name) {
        for (MpjDevice d : values()) {
            if (d.mpjName.equalsIgnoreCase(name) || d.name().equalsIgnoreCase(name)) return d;
        }
        throw new IllegalArgumentException("unknown MPJ device '" + name + "': use multicore or niodev");
    }

    @Override
    public String toString() {
        return mpjName;
    }
}
