package org.mpi2nccl.launch.nodes;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import mpi.MPI;
import org.mpi2nccl.launch.Report;

/**
 * A rank program that says where it runs: its node (host name, network namespace), the NCCL variables and GPUs
 * its node gave it, and the sum of rank+1 over all ranks (proof that the ranks reached each other).
 * {@code mpi2nccl nodes -- mpjrun -np 4 org.mpi2nccl.launch.nodes.WhereAmI}
 */
public final class WhereAmI {
    private WhereAmI() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        long[] sum = new long[1];
        MPI.COMM_WORLD.Allreduce(new long[] {rank + 1L}, 0, sum, 0, 1, MPI.LONG, MPI.SUM);
        String host = InetAddress.getLocalHost().getHostName();
        String net = Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("host", host);
        r.put("net", net);
        for (String v : new String[] {"NCCL_HOSTID", "NCCL_SOCKET_IFNAME", "CUDA_VISIBLE_DEVICES"}) {
            r.put(v, System.getenv().getOrDefault(v, "-"));
        }
        r.put("sum", sum[0]);
        System.out.printf("rank %d of %d on %s (%s): NCCL_HOSTID=%s NCCL_SOCKET_IFNAME=%s CUDA_VISIBLE_DEVICES=%s;"
                + " sum of rank+1 = %d%n", rank, size, host, net, r.get("NCCL_HOSTID"), r.get("NCCL_SOCKET_IFNAME"),
                r.get("CUDA_VISIBLE_DEVICES"), sum[0]);
        Report.emit(r);
        MPI.Finalize();
    }
}
