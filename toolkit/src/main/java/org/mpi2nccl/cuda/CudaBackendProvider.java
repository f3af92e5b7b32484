package org.mpi2nccl.cuda;

import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.BackendProvider;
import org.mpi2nccl.tensor.Device;

/** Makes the CUDA backend known to {@link org.mpi2nccl.tensor.Backends} (listed in META-INF/services). */
public final class CudaBackendProvider implements BackendProvider {
    @Override
    public Device.Kind kind() {
        return Device.Kind.CUDA;
    }

    @Override
    public int deviceCount() {
        return Cuda.deviceCount();
    }

    @Override
    public String unavailableReason() {
        return Cuda.unavailableReason();
    }

    @Override
    public Backend open(int index) {
        return CudaBackend.open(index);
    }
}
