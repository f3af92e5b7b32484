package org.mpi2nccl.parallel;

import org.mpi2nccl.parallel.gpu.Route;
import mpi.MPI;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.lessons.Lesson07;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Adam;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;

/**
 * The rank program of {@link ShardedOptimizerGpuTest}: lesson 07's library part on one GPU per rank through NCCL.
 * Trains the lesson's model with Adam sharded over the ranks ({@link ShardedOptimizer}), then with plain data
 * parallelism ({@link DataParallel}), and prints {@code rank R: sharded vs plain D} (the largest relative difference).
 */
public final class ShardedGpuRank {
    private ShardedGpuRank() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        try (MpjCommunicator host = MpjCommunicator.world()) {
            Device device = Device.cuda(host.rank() % Cuda.deviceCount());
            Communicator comm = Route.NCCL.open(host, device);
            try {
                float[] sharded = trainSharded(comm, device);
                float[] plain = Lesson07.trainPlainAdam(comm, device, 100, 3, 0.01f);
                System.out.printf("rank %d: sharded vs plain %.3e on %s over %s%n", host.rank(),
                        EquivalenceCheck.relativeDifference(sharded, plain), device, comm.kind());
            } finally {
                comm.close();
            }
        }
        MPI.Finalize();
    }

    /** The notebook's loop: 3 epochs of Adam sharded over the ranks, from rank r's own seed 100 + r. */
    static float[] trainSharded(Communicator comm, Device device) {
        SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
        DataLoader loader = Lesson07.loader(comm.rank(), comm.size(), device);
        try (Module net = Lesson07.model(device, 100 + comm.rank());
             ShardedOptimizer opt = new ShardedOptimizer(net.parameters(), comm, slice -> new Adam(slice, 0.01f))) {
            for (int epoch = 0; epoch < 3; epoch++) {
                for (Batch b : loader.epoch(epoch)) {
                    try (ArrayScope step = ArrayScope.open(); b) {
                        opt.zeroGrad();
                        lossFn.forward(net.forward(Tensor.constant(b.x())), b.y()).backward();
                        opt.step();
                    }
                }
            }
            return EquivalenceCheck.flatParameters(net);
        }
    }
}
