package org.mpi2nccl.launch;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import mpi.MPI;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.cuda.CudaDevice;

/**
 * Hello from every rank and its GPU: the first GPU program of the course, and the check that a machine is
 * ready (Java, MPJ, the CUDA driver). Rank r takes GPU r % count, as every GPU lesson does. Run it with
 * niodev (a JVM per rank: the CUDA libraries load once per JVM):
 * {@code mpi2nccl mpjrun -np 2 --device niodev org.mpi2nccl.launch.GpuHello}.
 */
public final class GpuHello {
    private GpuHello() {}

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        String host = InetAddress.getLocalHost().getHostName();
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("host", host);
        if (Cuda.isAvailable()) {
            CudaDevice gpu = Cuda.device(rank % Cuda.deviceCount());
            System.out.printf("hello from rank %d of %d on %s: GPU %d %s (compute %s, %d GiB)%n", rank, size, host,
                    gpu.ordinal, gpu.name, gpu.computeCapability(), gpu.totalMemoryBytes >> 30);
            record.put("gpu", gpu.ordinal);
            record.put("name", gpu.name);
        } else {
            System.out.printf("hello from rank %d of %d on %s: no GPU (%s)%n", rank, size, host,
                    Cuda.unavailableReason());
            record.put("gpu", "none");
            record.put("name", Cuda.unavailableReason());
        }
        Report.emit(record);
        MPI.Finalize();
    }
}
