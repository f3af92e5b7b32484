package org.mpi2nccl.bench.gpu;

import java.util.ArrayList;
import java.util.List;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.CudaEvent;
import org.mpi2nccl.cuda.CudaGraph;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.parallel.gpu.GpuDataParallel;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.NDArray;

/**
 * The speedup experiment's probe: a step's recorded forward graph replayed back to back with nothing else on the GPU.
 * Set against the step's forward phase it says whether the step's surroundings (the phases around it, the other
 * ranks, NCCL having run) slow the same graph down. The batch-norm running statistics the replays move are put back.
 * With {@code -Dmpi2nccl.profiledReplays=N}, N more replays run as the range a profiler started with profiling off
 * records, kernel by kernel.
 */
public final class ForwardGraphProbe {
    private static final int PROFILED_REPLAYS = Integer.getInteger("mpi2nccl.profiledReplays", 0);

    private ForwardGraphProbe() {
    }

    /** Microseconds per replay of {@code dp}'s forward graph, or NaN without one. Call between steps. */
    public static double micros(GpuDataParallel dp, int replays) {
        CudaGraph forward = dp.forwardGraph();
        if (forward == null || replays < 1 || !(dp.backend() instanceof CudaBackend gpu)) return Double.NaN;
        Module model = dp.model();
        List<NDArray> kept = new ArrayList<>();
        try (ArrayScope scope = ArrayScope.open();
             CudaEvent start = new CudaEvent(gpu.context()); CudaEvent end = new CudaEvent(gpu.context())) {
            for (NDArray b : model.namedBuffers().values()) kept.add(b.copy());
            forward.launch();       // the first replay after the step's graphs may pay for the switch: not timed
            start.record();
            for (int i = 0; i < replays; i++) forward.launch();
            end.record();
            end.synchronize();
            double micros = CudaEvent.elapsedMillis(start, end) * 1000.0 / replays;
            if (PROFILED_REPLAYS > 0) gpu.context().profiled(() -> {
                for (int r = 0; r < PROFILED_REPLAYS; r++) forward.launch();
            });
            int i = 0;
            for (NDArray b : model.namedBuffers().values()) b.assign(kept.get(i++));
            gpu.synchronize();
            return micros;
        }
    }
}
