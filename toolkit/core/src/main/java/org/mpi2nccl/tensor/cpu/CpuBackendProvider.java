package org.mpi2nccl.tensor.cpu;

import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.BackendProvider;
import org.mpi2nccl.tensor.Device;

/** The CPU backend, found by {@link org.mpi2nccl.tensor.Backends} like any other: one device, always there. */
public final class CpuBackendProvider implements BackendProvider {
    @Override
    public Device.Kind kind() {
        return Device.Kind.CPU;
    }

    @Override
    public int deviceCount() {
        return 1;
    }

    @Override
    public String unavailableReason() {
        return null;
    }

    @Override
    public Backend open(int index) {
        return CpuBackend.instance();
    }
}
