package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ring.RingCommunicator;
import org.mpi2nccl.cuda.GpuTests;
import org.mpi2nccl.tensor.Device;

/**
 * Lesson 07's check on one GPU: the notebook's sharded step (reduce-scatter, update the slice, all-gather) on one rank
 * (a 1-rank ring) whose model, batches and gradients live on cuda:0, against plain data parallelism on the same GPU.
 */
@Tag("gpu")
class Lesson07GpuTest {
    /** The notebook's reference answer; {@code ring} is this rank's communicator. */
    static Lesson07.FlatStep shardedStep(Communicator ring) {
        int rank = ring.rank(), size = ring.size();
        return (params, grads, velocity) -> {
            int n = params.length, shard = velocity.length, start = rank * shard;
            float[] padded = Arrays.copyOf(grads, shard * size);
            float[] myGrad = new float[shard];
            ring.reduceScatter(HostBuffer.of(padded), HostBuffer.of(myGrad), Reduction.AVG);
            float[] mySlice = new float[shard];
            for (int i = 0; i < shard && start + i < n; i++) {
                velocity[i] = Lesson07.MOMENTUM * velocity[i] + myGrad[i];
                mySlice[i] = params[start + i] - Lesson07.LR * velocity[i];
            }
            float[] all = new float[shard * size];
            ring.allGather(HostBuffer.of(mySlice), HostBuffer.of(all));
            System.arraycopy(all, 0, params, 0, n);
        };
    }

    /** The check of the sharded step on {@code device}, one rank. */
    static Check shardedOn(Device device) {
        try (RingCommunicator ring = RingCommunicator.threads(1, b -> {}).get(0)) {
            return Lesson07.checkShardedStep(0, 1, ring, shardedStep(ring), device);
        }
    }

    @Test
    void theShardedStepPassesOnOneGpu() {
        GpuTests.requireGpu();
        Check k = shardedOn(Device.cuda(0));
        System.out.println(k);
        assertTrue(k.passed(), k.toString());
    }
}
