package org.mpi2nccl.lessons;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mpi2nccl.comm.ring.LocalRanks;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.parallel.gpu.GpuDataParallel;
import org.mpi2nccl.parallel.gpu.GpuOptions;
import org.mpi2nccl.parallel.timing.Phase;
import org.mpi2nccl.parallel.timing.TimeBreakdown;
import org.mpi2nccl.parallel.timing.Timeline;
import org.mpi2nccl.parallel.timing.TimelineTrace;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.tensor.Device;
import tech.tablesaw.api.Table;

/**
 * Lesson 05's look inside a 2-rank step: the same training steps through MPJ Express's Allreduce and through the ring
 * over shared memory, timed phase by phase, as a table and in sentences computed from the numbers; and the GPU
 * timeline, recorded ({@link Recorded#DATA_PARALLEL}, {@code timeline/trace.json}) or live where there is a GPU.
 */
public final class Lesson05Routes {
    /** Where a recorded GPU timeline lives in {@link Recorded#DATA_PARALLEL}. */
    public static final String GPU_TRACE = "timeline/trace.json";

    /** Communication times closer than this factor are called the same. */
    static final double SAME = 1.15;

    private Lesson05Routes() {
    }

    /** The two routes' steps side by side: milliseconds per step of each phase (3 significant digits). */
    public static Table table(TimeBreakdown mpi, TimeBreakdown shm) {
        Map<String, TimeBreakdown> rows = new LinkedHashMap<>();
        rows.put("MPJ Allreduce", mpi);
        rows.put("ring over shared memory", shm);
        return TimeBreakdown.table(rows);
    }

    /** What the two routes' steps show, in sentences computed from their times (rank 0's, overlap off). */
    public static String verdict(TimeBreakdown mpi, TimeBreakdown shm) {
        if (mpi.steps() == 0 || shm.steps() == 0) return "No steps were timed on one of the routes: nothing to compare.";
        double commMpi = mpi.msPerStep(Phase.COMMUNICATION), commShm = shm.msPerStep(Phase.COMMUNICATION);
        double stepMpi = mpi.totalNanos() / 1e6 / mpi.steps(), stepShm = shm.totalNanos() / 1e6 / shm.steps();
        double computeMpi = stepMpi - commMpi, computeShm = stepShm - commShm;
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "Here the ring over shared memory spent %.2f ms per step"
                + " communicating, MPJ's Allreduce %.2f ms (rank 0, overlap off; of each route the round with the median"
                + " step, %d steps).", commShm, commMpi, shm.steps()));
        if (commShm * SAME < commMpi) {
            s.append(String.format(Locale.ROOT, " The ring's communication was %.1fx shorter: each of its messages is one copy"
                    + " into memory both ranks map and one copy out, with no library layer in between.", commMpi / commShm));
        } else if (commMpi * SAME < commShm) {
            s.append(String.format(Locale.ROOT, " MPJ's was %.1fx shorter here: the ring moves a bucket in 2(N-1) = 2 steps"
                    + " of half a bucket, and each step waits for the other rank, which on a busy machine may not be running.",
                    commShm / commMpi));
        } else {
            s.append(" The two were within 15% of each other here: for a step this short, waiting for the other rank costs"
                    + " as much as moving the bytes.");
        }
        s.append(String.format(Locale.ROOT, " A whole step took %.2f ms with MPJ and %.2f ms with the ring; communication"
                + " was %.0f%% and %.0f%% of it.", stepMpi, stepShm, 100 * commMpi / stepMpi, 100 * commShm / stepShm));
        double apart = Math.max(computeMpi, computeShm) / Math.min(computeMpi, computeShm);
        if (apart <= SAME) {
            s.append(String.format(Locale.ROOT, " Computing (forward, backward, optimizer) took %.2f ms and %.2f ms: the same"
                    + " work, so the routes differ in communication only.", computeMpi, computeShm));
        } else {
            s.append(String.format(Locale.ROOT, " Computing (forward, backward, optimizer) took %.2f ms with MPJ and %.2f ms"
                    + " with the ring: the same work, %.0f%% apart. That difference is the machine, not the route: other"
                    + " programs, or a rank waiting for the other, took cores from the computation (a rank waiting in the"
                    + " ring polls shared memory, which keeps a core busy).", computeMpi, computeShm, 100 * (apart - 1)));
        }
        return s.toString();
    }

    /**
     * Of several rounds' times of one route, the round whose step is the median (a round slowed by the machine, or
     * lucky, is left out); an empty list gives no steps.
     */
    public static TimeBreakdown median(List<TimeBreakdown> rounds) {
        if (rounds.isEmpty()) return new TimeBreakdown(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        List<TimeBreakdown> sorted = new java.util.ArrayList<>(rounds);
        sorted.sort(java.util.Comparator.comparingDouble(t -> t.totalNanos() / (double) Math.max(1, t.steps())));
        return sorted.get(sorted.size() / 2);
    }

    /**
     * The GPU timeline to show: the recorded one where the toolkit or this checkout has it (said so, with where it was
     * recorded), else a live one where this machine has a GPU (one rank, the lesson's CNN: its phases as the GPU ran
     * them), else null, with a sentence saying how one is recorded.
     */
    public static TimelineTrace gpuTimeline() throws IOException {
        Path f = Recorded.DATA_PARALLEL.file(GPU_TRACE);
        if (f != null) {
            System.out.println(Recorded.DATA_PARALLEL.source(GPU_TRACE));
            return TimelineTrace.fromJson(Files.readString(f));
        }
        if (Cuda.isAvailable() && Cuda.deviceCount() > 0) {
            System.out.println("No recorded GPU timeline here; this machine has a GPU, so here is a live one: one rank on "
                    + "cuda:0 (one rank all-reduces nothing, so its all-reduce lane stays empty).");
            return liveOneGpu();
        }
        System.out.println("No GPU timeline to show: none is recorded in this toolkit, and this machine has no GPU. On a"
                + " machine with GPUs this cell records one live; the GPU test TimelineGpuTest and the rank program"
                + " EquivalenceRank (timeline=FILE) record one on 2 GPUs over NCCL.");
        return null;
    }

    /** Four steps of the lesson CNN on cuda:0, the last two recorded (the first ones warm up). */
    static TimelineTrace liveOneGpu() {
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("cnn", new SyntheticDataset(512, new int[] {1, 28, 28}, 10, 7),
                128, 2, 3, 0.05f, 0.9f);
        List<TimelineTrace> got = LocalRanks.run(1, b -> {}, c -> {
            try (Module net = EquivalenceCheck.rankModel(s, Device.cuda(0), 0);
                 GpuDataParallel dp = new GpuDataParallel(net, c, DataParallel.Options.defaults(), GpuOptions.defaults())) {
                EquivalenceCheck.train(s, dp);                   // warm-up: kernels loaded, memory pool filled
                Timeline tl = Timeline.attach(dp, 2);
                EquivalenceCheck.train(s, dp);
                return tl.gather(c);
            }
        });
        return got.get(0);
    }
}
