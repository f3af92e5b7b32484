package org.mpi2nccl.comm;

/**
 * Where the time of a host-staged collective on GPU buffers went: copying device to host, the collective on
 * host memory, copying back. This is the cost of the "MPI route" that NCCL removes.
 */
public record StagingTimes(long deviceToHostNanos, long collectiveNanos, long hostToDeviceNanos) {
    public long totalNanos() {
        return deviceToHostNanos + collectiveNanos + hostToDeviceNanos;
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "D2H %.3f ms + collective %.3f ms + H2D %.3f ms",
                deviceToHostNanos / 1e6, collectiveNanos / 1e6, hostToDeviceNanos / 1e6);
    }
}
