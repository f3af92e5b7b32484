package org.mpi2nccl.tensor;

/**
 * How a non-CPU backend makes itself known without this package depending on it: an implementation is
 * listed in {@code META-INF/services/org.mpi2nccl.tensor.BackendProvider} and found with
 * {@link java.util.ServiceLoader} by {@link Backends}.
 */
public interface BackendProvider {

    /** The device kind this provider serves. */
    Device.Kind kind();

    /** How many devices of that kind can be used here (0 where the driver or the hardware is missing). */
    int deviceCount();

    /** Why {@link #deviceCount()} is 0, in words a student can act on (null if devices are present). */
    String unavailableReason();

    /** Opens (or returns the already opened) backend of device {@code index}. */
    Backend open(int index);
}
