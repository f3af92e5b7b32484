package org.mpi2nccl.bench.gpu;

import org.mpi2nccl.parallel.gpu.GpuDataParallel;
import org.mpi2nccl.parallel.gpu.GpuOptions;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import mpi.MPI;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.DistributedTraining;
import org.mpi2nccl.parallel.gpu.Route;
import org.mpi2nccl.launch.RankArgs;
import org.mpi2nccl.launch.Report;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Does an NCCL communicator with a peer slow down a CUDA graph of its process? The speedup experiment's ranks replay
 * their forward graph alone slower in a 2-GPU NCCL job than in a 1-GPU one (results/gpu-scaling/extra-time has the
 * times and what was ruled out), and PyTorch's graphed step does not
 * slow down beside NCCL ({@code scripts/gpu/nccl_beside.py}); but PyTorch's graph was recorded before NCCL came up
 * and the ranks' after. This rank times both, in one process, on the lesson CNN (32, 64 channels, CIFAR-shaped batches
 * of 128, SGD with momentum), each figure the forward graph replayed 200 times alone:
 * <ol>
 *   <li>a model trained one short epoch on this rank alone (a 1-rank communicator: no NCCL), its graphs recorded;</li>
 *   <li>the same graph after a 2-rank NCCL communicator was made and ran {@code allreduces} all-reduces of the
 *       model's gradient size, then stayed idle {@code pausems} milliseconds (default 0);</li>
 *   <li>a second model trained one epoch data-parallel over that communicator, its graphs recorded with NCCL up;</li>
 *   <li>the first graph once more, after that epoch.</li>
 * </ol>
 * Run on 2 GPUs: {@code mpi2nccl mpjrun -np 2 -dev niodev org.mpi2nccl.bench.gpu.NcclBesideRank [allreduces=2000]
 * [pausems=0]}; each rank prints one line and reports its four times.
 */
public final class NcclBesideRank {
    static final int BATCH = 128, STEPS = 40, REPLAYS = 200;

    private NcclBesideRank() {}

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        Args opts = RankArgs.parse(new Args(), List.of(rest));
        int allReduces = opts.allReduces;
        long pauseMs = opts.pauseMs;
        try (MpjCommunicator host = MpjCommunicator.world()) {
            int rank = host.rank();
            Device device = EquivalenceRank.device("cuda", rank);
            SyntheticDataset data = new SyntheticDataset(BATCH * STEPS, new int[] {3, 32, 32}, 10, 7);
            Communicator self = host.split(rank, 0);
            try (Module soloNet = Models.cnn(3, 32, 32, 64, device, 3);
                 SGD soloSgd = new SGD(soloNet.parameters(), 0.01f, 0.9f, 0f);
                 GpuDataParallel solo = new GpuDataParallel(soloNet, self, DataParallel.Options.defaults(), graphs())) {
                epoch(solo, soloSgd, data, device);
                double before = ForwardGraphProbe.micros(solo, REPLAYS);

                Communicator nccl = Route.NCCL.open(host, device);
                try {
                    try (NDArray grads = NDArray.ones(device, (int) soloNet.parameterCount())) {
                        for (int i = 0; i < allReduces; i++) nccl.allReduce(grads, Reduction.SUM);
                        nccl.synchronize();
                    }
                    Thread.sleep(pauseMs);
                    double withNccl = ForwardGraphProbe.micros(solo, REPLAYS);
                    double recordedWithNccl, afterEpoch;
                    try (Module net = Models.cnn(3, 32, 32, 64, device, 3);
                         SGD sgd = new SGD(net.parameters(), 0.01f, 0.9f, 0f);
                         GpuDataParallel dp = new GpuDataParallel(net, nccl, DataParallel.Options.defaults(), graphs())) {
                        epoch(dp, sgd, data, device);
                        recordedWithNccl = ForwardGraphProbe.micros(dp, REPLAYS);
                        afterEpoch = ForwardGraphProbe.micros(solo, REPLAYS);
                    }
                    System.out.println(String.format(Locale.ROOT, "rank %d on %s (%s): forward graph replayed alone, us:"
                                    + " recorded before NCCL %.1f before NCCL, %.1f with %d ranks' NCCL up"
                                    + " (%d all-reduces, then %d ms idle), %.1f after an epoch over NCCL;"
                                    + " recorded with NCCL up %.1f",
                            rank, device, Cuda.device(device.index()).name, before, withNccl, nccl.size(), allReduces,
                            pauseMs, afterEpoch, recordedWithNccl));
                    Report.emit(Map.of("rank", rank, "before_nccl_us", before, "with_nccl_us", withNccl,
                            "after_epoch_us", afterEpoch, "recorded_with_nccl_us", recordedWithNccl));
                } finally {
                    nccl.close();
                }
            } finally {
                self.close();
            }
        }
        MPI.Finalize();
    }

    /** The program's {@code key=value} arguments, parsed by picocli. */
    @Command(name = "NcclBesideRank")
    static final class Args {
        @Option(names = "allreduces", defaultValue = "2000") int allReduces;
        @Option(names = "pausems", defaultValue = "0") long pauseMs;
    }

    private static GpuOptions graphs() {
        return GpuOptions.defaults().cudaGraphs(true);
    }

    /** One epoch of the set's full batches; fails if no step was replayed from graphs (then there is nothing to time). */
    private static void epoch(GpuDataParallel dp, SGD sgd, SyntheticDataset data, Device device) {
        DataLoader loader = new DataLoader(data, BATCH, true, 1, true, device);
        DistributedTraining.trainEpoch(dp, loader, 0, sgd, new SoftmaxCrossEntropyLoss(), null);
        if (dp.graphReplays() == 0) {
            throw new IllegalStateException("no step was replayed from CUDA graphs: " + dp.graphsOff());
        }
    }
}
