package org.mpi2nccl.dist;

import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.DeviceBuffer;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.tensor.NDArray;

/**
 * Collectives on whole {@link NDArray}s of either device, in place: a GPU array is handed to the communicator
 * as device memory (NCCL reduces it there; the MPI route stages it through the host), a CPU array goes through
 * a Java {@code float[]} copy (what MPJ sends). The array must be contiguous.
 */
public final class TensorCollectives {
    private TensorCollectives() {}

    /** Every rank's {@code array} becomes rank {@code root}'s. */
    public static void broadcast(Communicator comm, NDArray array, int root) {
        inPlace(comm, array, b -> comm.broadcast(b, root));
    }

    /** Every rank's {@code array} becomes {@code op} over all ranks' arrays. */
    public static void allReduce(Communicator comm, NDArray array, Reduction op) {
        inPlace(comm, array, b -> comm.allReduce(b, op));
    }

    private static void inPlace(Communicator comm, NDArray array, java.util.function.Consumer<CommBuffer> collective) {
        if (!array.isContiguous()) {
            throw new IllegalArgumentException("collectives need a contiguous array; got a strided view of shape "
                    + java.util.Arrays.toString(array.shape()) + " (call compact() and copy back)");
        }
        int n = Math.toIntExact(array.size());
        if (array.device().isCpu()) {
            float[] host = new float[n];
            array.backend().copyToHost(array.storage(), array.offset(), host, 0, n);
            collective.accept(HostBuffer.of(host));
            array.backend().copyFromHost(host, 0, array.storage(), array.offset(), n);
        } else {
            CudaBackend gpu = (CudaBackend) array.backend();
            gpu.synchronize();              // the array's pending writes are queued on the backend's stream
            long address = gpu.deviceAddress(array.storage()) + array.offset() * 4;
            collective.accept(DeviceBuffer.wrap(address, n, DataType.FLOAT32, array.device().index()));
            comm.synchronize();
        }
    }
}
