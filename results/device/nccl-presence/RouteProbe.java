// Issue 7, session 7: the speedup experiment's NCCL-route rank trains 1.4-1.5% slower on one GPU than its MPI-route
// rank, on either GPU at the same clocks (results/gpu-2026-11-22-s7), while PresenceTraining, a plain JVM, is as fast
// with NCCL set up by ncclCommInitRank as without. This is PresenceTraining's training inside an MPJ rank (run by
// `mpi2nccl mpjrun -np 1 --device niodev -cp build/nccl-presence:BUNDLE/lib/* RouteProbe MODE`), to find which part
// of the rank brings the slowdown:
//   mpj-plain       MPI.Init, then training over a thread communicator (what the MPI route's rank is, minus its data)
//   mpj-overhost    MPI.Init, NCCL bootstrapped over MPJ as the route does (NcclCommunicator.overHost), training over it
//   mpj-initrank    MPI.Init, NCCL by a unique id and ncclCommInitRank without MPJ's rendezvous, training over it
//   mpj-late        MPI.Init, the data loader and a first GPU allocation made, then NCCL over MPJ (the route's order)
//   mpj-unused      as mpj-late, but training over the thread communicator: NCCL set up and never called again
// The experiment's NCCL rank is as fast as the MPI rank for two epochs and 2% slower from its third on (identical losses),
// and it evaluates after every epoch; these train 8 epochs of 20000 examples with something done after each:
//   eval-plain      DistributedTraining.evaluate (the experiment's evaluation) over the thread communicator
//   eval-nccl       the same over NCCL (the BN statistics averaged and the sums all-reduced by NCCL)
//   avg-nccl        only the BN statistics averaged by NCCL (ncclAvg in place, one call per buffer, as
//                   DataParallel.averageBuffers did before it skipped one rank), with CUDA's limits printed after
//   avg-nccl-l2reset  the same, then cudaCtxResetPersistingL2Cache
//   avg-nccl-nbstream  avg-nccl with NCCL on a stream made non-blocking (cudaStreamNonBlocking) by this program
//   avg1-nccl       one ncclAvg of one small array before the first epoch, none after (does one NCCL kernel do it?)
//   evalfwd-nccl    training over NCCL, then the evaluation's forward passes alone (no collective)
import java.util.List;
import org.bytedeco.cuda.cudart.CUstream_st;
import mpi.MPI;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.MpjCommunicator;
import org.mpi2nccl.comm.RingCommunicator;
import org.mpi2nccl.comm.nccl.NcclCommunicator;
import org.mpi2nccl.comm.nccl.NcclOptions;
import org.mpi2nccl.data.ArrayDataset;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.dist.DataParallel;
import static org.bytedeco.cuda.global.cudart.cudaCtxResetPersistingL2Cache;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;
import static org.bytedeco.cuda.global.cudart.cudaStreamCreateWithFlags;
import static org.bytedeco.cuda.global.cudart.cudaStreamNonBlocking;

import org.mpi2nccl.autograd.GradMode;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.Tensors;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.dist.DistributedSampler;
import org.mpi2nccl.dist.DistributedTraining;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.NDArray;

public class RouteProbe {
    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        String mode = rest.length > 0 ? rest[0] : "mpj-plain";
        NcclOptions opts = NcclOptions.fast().device(0);
        try (MpjCommunicator host = MpjCommunicator.world()) {
            NcclCommunicator nccl = switch (mode) {
                case "mpj-overhost" -> NcclCommunicator.overHost(host, opts.timeout(host.timeout()));
                case "mpj-initrank" -> NcclCommunicator.initRank(NcclCommunicator.uniqueId(), 0, 1, opts);
                default -> null;
            };
            boolean after = mode.startsWith("eval") || (mode.startsWith("avg") && !mode.startsWith("avg1"));
            if (mode.equals("avg1-nccl")) {
                nccl = NcclCommunicator.overHost(host, opts.timeout(host.timeout()));
                try (NDArray one = NDArray.zeros(PresenceTraining.GPU, 64)) {
                    Tensors.allReduce(nccl, one, Reduction.AVG);
                }
            }
            if (after && mode.contains("-nccl")) {
                NcclOptions o = opts.timeout(host.timeout());
                if (mode.endsWith("nbstream")) {
                    CUstream_st s = new CUstream_st();
                    cudaSetDevice(0);
                    cudaStreamCreateWithFlags(s, cudaStreamNonBlocking);
                    o = o.stream(s.address());          // left to the process's end: a probe
                }
                nccl = NcclCommunicator.overHost(host, o);
            }
            ArrayDataset train = PresenceTraining.randomSet();
            DataLoader loader = PresenceTraining.trainingLoader(train);
            if (mode.equals("mpj-late") || mode.equals("mpj-unused")) {
                NDArray.zeros(PresenceTraining.GPU, 1024).close();      // the context and the model's stream made first
                nccl = NcclCommunicator.overHost(host, opts.timeout(host.timeout()));
            }
            DataLoader test = new DataLoader(train.head(10_000), 500, DistributedSampler.evaluation(10_000, 0, 1), false,
                    PresenceTraining.GPU);
            RingCommunicator thread = RingCommunicator.threads(1, b -> {}).get(0);
            Communicator c = nccl != null && !mode.equals("mpj-unused") ? nccl : thread;
            try (Module model = Models.cnn(3, 32, 32, 64, PresenceTraining.GPU, 1);
                 DataParallel dp = new DataParallel(model, c, PresenceTraining.GRAPHS);
                 SGD opt = new SGD(model.parameters(), 0.01f, 0.9f, 0f)) {
                PresenceTraining.epochs(mode, dp, loader, opt, 1);
                if (!after) PresenceTraining.epochs(mode, dp, loader, opt, mode.equals("avg1-nccl") ? 12 : 4);
                for (int e = 0; after && e < 8; e++) {
                    PresenceTraining.epochs(mode, dp, loader, opt, 2);     // count 2: printed (two epochs between)
                    switch (mode) {
                        case "eval-plain", "eval-nccl" -> DistributedTraining.evaluate(dp, test, PresenceTraining.LOSS);
                        case "avg-nccl", "avg-nccl-l2reset", "avg-nccl-nbstream" -> {
                            for (NDArray b : model.namedBuffers().values()) Tensors.allReduce(nccl, b, Reduction.AVG);
                            if (mode.endsWith("l2reset")) cudaCtxResetPersistingL2Cache();
                            NcclPresence.limits("   after the averages");
                        }
                        default -> evalForward(model, test);
                    }
                }
            } finally {
                if (nccl != null) nccl.close();
                thread.close();
            }
        }
        MPI.Finalize();
    }

    /** The evaluation's forward passes, without its collectives. */
    static void evalForward(Module model, DataLoader test) {
        model.eval();
        try (GradMode.Off off = GradMode.off()) {
            for (Batch b : test.epoch(0)) {
                try (ArrayScope s = ArrayScope.open(); b) {
                    PresenceTraining.LOSS.forward(model.forward(Tensor.constant(b.x())), b.y());
                }
            }
        } finally {
            model.train();
        }
    }
}
