// Issue 7: one GPU trains the lesson CNN 1.7-2.5% slower in every phase when its rank also holds a 1-rank NCCL
// communicator (results/gpu-2026-11-22-s5). cuBLAS GEMMs alone are not slower (NcclPresence.java, session 6).
// This trains the CNN in one process on GPU 0 (CIFAR-shaped random set, batch 128, CUDA graphs), 4 epochs each:
//   A  without NCCL                      (a 1-rank thread communicator: the no-communicator baseline)
//   B  the same model and memory, after ncclCommInitAll on GPU 0 (NCCL initialised, never called)
//   C  the same after ncclCommDestroy
//   D  a fresh model and DataParallel made after a new ncclCommInitAll, over that 1-rank NCCL communicator
// B slower than A: NCCL's presence slows the GPU; only D slower: it is where our memory lands after NCCL's.
// With an argument, one fresh process per order: "nccl-first" initialises NCCL before any other CUDA work (as a rank
// of the NCCL route does: NCCL is bootstrapped before the model is made), then trains over that communicator;
// "plain" trains over the thread communicator and never loads NCCL; "nccl-initrank" is "nccl-first" through a unique
// id and ncclCommInitRank (the route's own path, without MPJ), where the others use ncclCommInitAll.
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.RingCommunicator;
import org.mpi2nccl.comm.nccl.NcclCommunicator;
import org.mpi2nccl.comm.nccl.NcclOptions;
import org.mpi2nccl.data.ArrayDataset;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.dist.DataParallel;
import org.mpi2nccl.dist.DataParallelOptions;
import org.mpi2nccl.dist.DistributedSampler;
import org.mpi2nccl.dist.DistributedTraining;
import org.mpi2nccl.dist.Phase;
import org.mpi2nccl.dist.TimeBreakdown;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.Device;

public class PresenceTraining {
    static final Device GPU = Device.cuda(0);
    static final SoftmaxCrossEntropyLoss LOSS = new SoftmaxCrossEntropyLoss();
    static final DataParallelOptions GRAPHS = DataParallelOptions.defaults().cudaGraphs(true);
    static int epochCounter;

    public static void main(String[] args) {
        String mode = args.length > 0 ? args[0] : "in-process";
        List<NcclCommunicator> first = mode.equals("nccl-first") ? NcclCommunicator.initAll(NcclOptions.fast(), 0)
                : mode.equals("nccl-initrank") ? List.of(NcclCommunicator.initRank(NcclCommunicator.uniqueId(), 0, 1, NcclOptions.fast().device(0)))
                : null;
        ArrayDataset train = randomSet();
        DataLoader loader = trainingLoader(train);

        RingCommunicator thread = RingCommunicator.threads(1, b -> {}).get(0);
        if (!mode.equals("in-process")) {
            Communicator c = first != null ? first.get(0) : thread;
            try (Module model = Models.cnn(3, 32, 32, 64, GPU, 1); DataParallel dp = new DataParallel(model, c, GRAPHS);
                 SGD opt = new SGD(model.parameters(), 0.01f, 0.9f, 0f)) {
                epochs(mode, dp, loader, opt, 1);
                epochs(mode, dp, loader, opt, 4);
            } finally {
                // closeAll is for initAll's communicators: the initrank one is closed on its own (closeAll finalized it
                // twice here: the stack traces in results/gpu-2026-11-22-s7/presence-order.txt, after the timings)
                if (first != null && mode.equals("nccl-initrank")) first.get(0).close();
                else if (first != null) NcclCommunicator.closeAll(first);
                thread.close();
            }
            return;
        }
        try (Module model = Models.cnn(3, 32, 32, 64, GPU, 1); DataParallel dp = new DataParallel(model, thread, GRAPHS);
             SGD opt = new SGD(model.parameters(), 0.01f, 0.9f, 0f)) {
            epochs("A without NCCL", dp, loader, opt, 1);     // warm-up epoch, not printed
            epochs("A without NCCL", dp, loader, opt, 4);
            List<NcclCommunicator> nccl = NcclCommunicator.initAll(NcclOptions.fast(), 0);
            epochs("B NCCL initialised", dp, loader, opt, 4);
            NcclCommunicator.closeAll(nccl);
            epochs("C NCCL destroyed", dp, loader, opt, 4);
            epochs("A' without NCCL again", dp, loader, opt, 4);
        }
        List<NcclCommunicator> nccl = NcclCommunicator.initAll(NcclOptions.fast(), 0);
        try (Module model = Models.cnn(3, 32, 32, 64, GPU, 1); DataParallel dp = new DataParallel(model, nccl.get(0), GRAPHS);
             SGD opt = new SGD(model.parameters(), 0.01f, 0.9f, 0f)) {
            epochs("D made after NCCL", dp, loader, opt, 1);
            epochs("D made after NCCL", dp, loader, opt, 4);
        } finally {
            NcclCommunicator.closeAll(nccl);
        }
        thread.close();
    }

    /** 20000 CIFAR-shaped examples of Gaussian noise with random labels (a fixed seed): what every probe trains on. */
    static ArrayDataset randomSet() {
        int n = 20_000, fs = 3 * 32 * 32;
        float[] x = new float[n * fs];
        int[] y = new int[n];
        Random r = new Random(7);
        for (int i = 0; i < x.length; i++) x[i] = (float) r.nextGaussian();
        for (int i = 0; i < n; i++) y[i] = r.nextInt(10);
        return new ArrayDataset(x, y, new int[] {3, 32, 32}, 10);
    }

    /** Batches of 128 on GPU 0, gathered ahead on a thread, as the experiment's GPU ranks load them. */
    static DataLoader trainingLoader(ArrayDataset train) {
        return new DataLoader(train, 128, DistributedSampler.training(train.size(), 0, 1, 1), false, GPU).withPrefetch(2);
    }

    static void epochs(String what, DataParallel dp, DataLoader loader, SGD opt, int count) {
        for (int k = 0; k < count; k++) {
            DistributedTraining.EpochResult e = DistributedTraining.trainEpoch(dp, loader, epochCounter++, opt, LOSS, null);
            TimeBreakdown t = e.times();
            if (count == 1) continue;
            System.out.printf(Locale.ROOT, "%-24s epoch %.4f s  us/step: forward %6.1f backward %6.1f comm %5.1f optimizer %5.1f%n",
                    what, e.seconds(), 1000 * t.msPerStep(Phase.FORWARD), 1000 * t.msPerStep(Phase.BACKWARD),
                    1000 * t.msPerStep(Phase.COMMUNICATION), 1000 * t.msPerStep(Phase.OPTIMIZER));
        }
    }
}
