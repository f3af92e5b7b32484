package org.mpi2nccl.parallel;

import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.parallel.GradientBuckets.Bucket;
import org.mpi2nccl.tensor.Backend;

/**
 * The plain {@link CommHook}: each bucket averaged by one all-reduce of the step's communicator. On a GPU the host
 * waits for the GPU before each call (a collective must not read a bucket that kernels are still writing) and for
 * the communicator after the last one; the GPU path's own hook replaces those waits by CUDA events.
 */
public final class AllReduceHook implements CommHook {
    private final Communicator comm;
    private final Backend backend;

    public AllReduceHook(Communicator comm, Backend backend) {
        this.comm = comm;
        this.backend = backend;
    }

    @Override
    public Communicator beside() {
        return comm;
    }

    @Override
    public void beforeAllReduce() {
        if (!backend.device().isCpu()) backend.synchronize();
    }

    @Override
    public boolean allReduce(Bucket b, Communicator via) {
        via.allReduce(b.buffer(), Reduction.AVG);
        return true;
    }

    @Override
    public void afterAllReduces() {
        comm.synchronize();
    }
}
