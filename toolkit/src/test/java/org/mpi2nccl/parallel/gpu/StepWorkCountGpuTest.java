package org.mpi2nccl.parallel.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.ring.LocalRanks;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaContext;
import org.mpi2nccl.cuda.GpuTests;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.DistributedTraining;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.Device;

/**
 * What one training step of the speedup experiment costs the host: kernel launches, cuBLAS calls and device
 * allocations per step of the lesson CNN (32, 64 channels, 28x28 inputs, batch 128), through the very loop the
 * experiment runs ({@link DistributedTraining#trainEpoch} over a {@link GpuDataParallel} of one rank). The step is
 * bound by the host (each launch costs microseconds, the whole step's GPU work is under a millisecond), so these
 * counts are the figure to drive down; they are deterministic, so a bound on them is a regression test.
 */
@Tag("gpu")
class StepWorkCountGpuTest {
    static final int BATCH = 128, WARM_UP = 3, STEPS = 12;
    /** Bounds per step; on an H200 the step queues 45 launches and 11 GEMMs, with no driver allocation. */
    static final long MAX_LAUNCHES = 50, MAX_LIBRARY_CALLS = 12, MAX_ALLOCATIONS = 2;

    @Test
    void lessonCnnStepOnOneGpu() {
        GpuTests.requireGpu();
        Device d = Device.cuda(0);
        CudaContext ctx = ((CudaBackend) d.backend()).context();
        List<CudaContext.WorkCounts> perStep = LocalRanks.run(1, b -> {}, comm -> {
            List<CudaContext.WorkCounts> snapshots = new ArrayList<>();
            SyntheticDataset data = new SyntheticDataset(BATCH * (WARM_UP + STEPS), new int[] {1, 28, 28}, 10, 7);
            DataLoader loader = new DataLoader(data, BATCH, true, 1, true, d);
            try (Module net = Models.cnn(32, 64, d, 3); SGD opt = new SGD(net.parameters(), 0.05f, 0.9f, 0f);
                 GpuDataParallel dp = new GpuDataParallel(net, comm, DataParallel.Options.defaults(), GpuOptions.defaults())) {
                snapshots.add(ctx.workCounts());
                DistributedTraining.trainEpoch(dp, loader, 0, opt, new SoftmaxCrossEntropyLoss(),
                        (batch, batches) -> snapshots.add(ctx.workCounts()));
            }
            List<CudaContext.WorkCounts> steps = new ArrayList<>();
            for (int i = 1; i < snapshots.size(); i++) steps.add(snapshots.get(i).minus(snapshots.get(i - 1)));
            return steps;
        }).get(0);
        assertEquals(WARM_UP + STEPS, perStep.size(), "one snapshot per training step");
        List<CudaContext.WorkCounts> timed = perStep.subList(WARM_UP, perStep.size());
        CudaContext.WorkCounts first = timed.get(0);
        System.out.println("lesson CNN (32, 64), batch " + BATCH + ", one step of DistributedTraining on cuda:0: "
                + first.launches() + " kernel launches, " + first.libraryCalls() + " cuBLAS calls, " + first.allocations()
                + " device allocations (steps 1.." + perStep.size() + ": " + perStep + ")");
        for (CudaContext.WorkCounts s : timed) assertEquals(first, s, "every step queues the same work: " + timed);
        assertTrue(first.launches() > 0 && first.libraryCalls() > 0, "the counters count: " + first);
        assertTrue(first.launches() <= MAX_LAUNCHES, "kernel launches per step: " + first.launches() + " > " + MAX_LAUNCHES);
        assertTrue(first.libraryCalls() <= MAX_LIBRARY_CALLS, "cuBLAS calls per step: " + first.libraryCalls() + " > " + MAX_LIBRARY_CALLS);
        assertTrue(first.allocations() <= MAX_ALLOCATIONS, "device allocations per step: " + first.allocations() + " > " + MAX_ALLOCATIONS);
    }
}
