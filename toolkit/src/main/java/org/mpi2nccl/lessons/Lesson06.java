package org.mpi2nccl.lessons;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import mpi.MPI;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.nccl.NcclException;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.DistributedSampler;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.RunningJob;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * Lesson 06, troubleshooting: reading NCCL_DEBUG=INFO output, the errors NCCL reports and their causes, and two
 * exercises. DIAGNOSE: failing jobs' outputs (live fault runs and recorded NCCL logs, {@link Lesson06Diagnosis}), each
 * to be named by its {@link Cause}. Then the faults run on purpose (a collective called with different sizes, a
 * collective one rank skips, a rank that crashes) with how long each takes to become an error, and uneven shards:
 * agree on the number of steps before the loop, with a function of a communicator ({@link Lesson06Steps}).
 */
public final class Lesson06 {
    /** The communicator timeout of the fault runs: a skipped collective becomes an error after this. */
    public static final Duration TIMEOUT = Duration.ofSeconds(4);

    private Lesson06() {
    }

    // ---- the diagnosis exercise ------------------------------------------------------------------------------------

    /** What made a job fail; {@link #sign()} is what its output shows. */
    public enum Cause {
        SKIPPED_COLLECTIVE("a rank never reached a collective the others called: the others wait in it until their"
                + " timeout, which names the call and whose message never came, and no rank failed before"),
        MISMATCHED_CALLS("the ranks called different collectives, or one collective with different sizes: every rank"
                + " says 'collective mismatch' at once and names both calls"),
        RANK_CRASHED("a rank died (an exception, out of memory, killed): its own exception comes first, then the"
                + " launcher stops the other ranks"),
        NETWORK_INTERFACE("NCCL found no network interface to bootstrap over: an NCCL WARN about the bootstrap socket,"
                + " with NCCL_SOCKET_IFNAME naming an interface that does not exist or does not connect the ranks"),
        DIFFERENT_IDS("the ranks did not share one unique id (each made its own, or the broadcast was missing): the"
                + " communicator's init times out on every rank, naming the ranks that never joined with its id");

        private final String sign;

        Cause(String sign) {
            this.sign = sign;
        }

        /** What an output with this cause shows. */
        public String sign() {
            return sign;
        }
    }

    /** The failing jobs to diagnose, labelled A, B, ...: live fault runs on this machine and recorded NCCL outputs. */
    public static Lesson06Diagnosis failingJobs() throws IOException {
        return Lesson06Diagnosis.make();
    }

    /** The check of the diagnosis exercise: each wrong answer explained with the clue in its output. */
    public static Check checkDiagnosis(Lesson06Diagnosis jobs, java.util.Map<String, Cause> answers) {
        return jobs.check(answers);
    }

    // ---- faults run on purpose ---------------------------------------------------------------------------------

    /**
     * What a fault run showed: seconds from the faulty call to the end of the job (every rank stopped), what the
     * student sees, and how many of the job's processes were left running.
     */
    public record Fault(String mode, double seconds, String error, int leftoverProcesses) {}

    /** Printed by rank 0 just before the faulty part, with the wall-clock time in milliseconds. */
    static final String FAULT_STARTS = "fault starts at ";

    /**
     * Runs {@link Faulty} on 2 multicore MPJ ranks: {@code mismatch} (rank 1 all-reduces 3 floats, rank 0 four),
     * {@code skip} (rank 1 skips the second all-reduce and ends), {@code crash} (rank 1 throws during training).
     */
    public static Fault runFault(String mode) {
        RunningJob job = Mpj.launch(Faulty.class).ranks(2).device(MpjDevice.MULTICORE).args(mode, Long.toString(TIMEOUT.toSeconds()))
                .timeout(Duration.ofSeconds(90)).start();
        String error;
        try {
            JobResult r = job.awaitResult();
            error = r.succeeded() ? "no error (the fault did not show)" : r.toString();
        } catch (RuntimeException e) {
            error = e.getMessage();
        }
        long end = System.currentTimeMillis();
        double s = Double.NaN;
        for (var line : job.linesSoFar()) {
            if (line.rank() == 0 && line.text().startsWith(FAULT_STARTS)) {
                s = (end - Long.parseLong(line.text().substring(FAULT_STARTS.length()).trim())) / 1000.0;
            }
        }
        int left = 0;
        for (long pid : job.pids()) if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) left++;
        return new Fault(mode, s, error, left);
    }

    /** The fault runs as a table. */
    public static Table faultTable(List<Fault> faults) {
        StringColumn mode = StringColumn.create("fault"), err = StringColumn.create("what the student sees");
        DoubleColumn secs = DoubleColumn.create("seconds from the fault to the end of the job");
        DoubleColumn left = DoubleColumn.create("processes left running");
        for (Fault f : faults) {
            mode.append(f.mode());
            secs.append(Math.round(f.seconds() * 10) / 10.0);
            err.append(f.error().length() > 400 ? f.error().substring(0, 400) + " ..." : f.error());
            left.append(f.leftoverProcesses());
        }
        return Table.create("faults", mode, secs, left, err);
    }

    /** Seconds until each fault became an error. */
    public static CategoryChart faultChart(List<Fault> faults) {
        CategoryChart c = new CategoryChartBuilder().width(600).height(320).title("From the fault to the end of the job"
                + " (communicator timeout " + TIMEOUT.toSeconds() + " s)").xAxisTitle("fault").yAxisTitle("seconds").build();
        c.addSeries("seconds", faults.stream().map(Fault::mode).toList(), faults.stream().map(Fault::seconds).toList());
        c.getStyler().setLegendVisible(false);
        return c;
    }

    /** The rank program of the fault runs. Arguments: mode, communicator timeout in seconds. */
    public static final class Faulty {
        private Faulty() {
        }

        public static void main(String[] args) throws Exception {
            String[] rest = MPI.Init(args);
            String mode = rest.length > 0 ? rest[0] : "skip";
            long timeout = rest.length > 1 ? Long.parseLong(rest[1]) : 4;
            try (MpjCommunicator comm = MpjCommunicator.builder().timeout(Duration.ofSeconds(timeout)).build()) {
                int rank = comm.rank();
                float[] a = {1, 2, 3, 4};
                comm.allReduce(HostBuffer.of(a), Reduction.SUM);            // every rank: fine
                if (rank == 0) System.out.println(FAULT_STARTS + System.currentTimeMillis());
                switch (mode) {
                    case "mismatch" -> {
                        float[] b = rank == 1 ? new float[3] : new float[4];    // a bug: rank 1's buffer is shorter
                        comm.allReduce(HostBuffer.of(b), Reduction.SUM);
                    }
                    case "skip" -> {
                        if (rank != 1) comm.allReduce(HostBuffer.of(a), Reduction.SUM);  // rank 1 forgot this one
                    }
                    case "crash" -> trainUntilRankOneCrashes(comm);
                    default -> throw new IllegalArgumentException("mode must be mismatch, skip or crash, got " + mode);
                }
            }
            MPI.Finalize();
        }

        /** Data-parallel training in which rank 1 dies at its third step (as out of memory or a bug would kill it). */
        private static void trainUntilRankOneCrashes(MpjCommunicator comm) {
            SyntheticDataset data = new SyntheticDataset(480, new int[] {1, 6, 6}, 5, 1);
            try (Module net = EquivalenceCheck.model("mlp", data, Device.cpu(), 1);
                 DataParallel dp = new DataParallel(net, comm, DataParallel.Options.defaults());
                 SGD opt = new SGD(net.parameters(), 0.1f)) {
                DataLoader loader = new DataLoader(data, 8, DistributedSampler.training(data.size(), comm.rank(), comm.size(), 1), false,
                        Device.cpu());
                SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
                int step = 0;
                for (Batch b : loader.epoch(0)) {
                    try (ArrayScope s = ArrayScope.open(); b) {
                        if (comm.rank() == 1 && ++step == 3) {
                            throw new IllegalStateException("rank 1 crashed at training step 3 (simulated: think out of memory)");
                        }
                        dp.step(b, opt, lossFn);
                    }
                }
            }
        }
    }

    // ---- NCCL_DEBUG=INFO, read together -------------------------------------------------------------------------

    /** The recorded NCCL log {@code name} (nccl-debug.txt, nccl-bad-ifname.txt) of results/data-parallel-2gpu/, or null. */
    public static List<String> recordedLog(String name) throws IOException {
        Path f = Recorded.DATA_PARALLEL.file(name);
        if (f == null) {
            System.out.println(Recorded.DATA_PARALLEL.missing(name));
            return null;
        }
        System.out.println(Recorded.DATA_PARALLEL.source(name));
        return Files.readAllLines(f);
    }

    private record Known(Pattern pattern, String meaning) {}

    private static final List<Known> KNOWN = List.of(
            new Known(Pattern.compile("NCCL version (\\S+)"), "the NCCL library this rank loaded (all ranks must use the same)"),
            new Known(Pattern.compile("Bootstrap\\s*: Using (\\S+)"), "the network interface the ranks use to find each other"
                    + " (NCCL_SOCKET_IFNAME chooses it)"),
            new Known(Pattern.compile("NET/IB : No device found"), "no InfiniBand: between hosts NCCL would use TCP sockets"),
            new Known(Pattern.compile("NET/Socket : Using (.*)"), "the interfaces for inter-host traffic over sockets"),
            new Known(Pattern.compile("Using network (\\S+)"), "the transport chosen between hosts"),
            new Known(Pattern.compile("cudaDriverVersion (\\d+)"), "the CUDA driver version NCCL sees"),
            new Known(Pattern.compile("comm \\S+ rank (\\d+) nRanks (\\d+) nNodes (\\d+)"), "this rank's place: rank, ranks, hosts"),
            new Known(Pattern.compile("via P2P/(\\S+)"), "GPU-to-GPU copies directly (NVLink or PCIe peer-to-peer), no host memory"),
            new Known(Pattern.compile("via SHM"), "through shared host memory (no peer-to-peer between these GPUs)"),
            new Known(Pattern.compile("via NET/"), "through the network (ranks on different hosts)"),
            new Known(Pattern.compile("Channel (\\d+)/(\\d+)"), "a channel: one of the parallel rings/trees NCCL moves data on"),
            new Known(Pattern.compile("Connected all (rings|trees)"), "the ranks' connections are up"),
            new Known(Pattern.compile("Init COMPLETE"), "ncclCommInitRank finished: the communicator is ready"),
            new Known(Pattern.compile("NCCL WARN (.*)"), "a warning: read these first when something fails"),
            new Known(Pattern.compile("(unhandled system error|internal error|invalid usage|remote process exited)"),
                    "an NCCL error: see the table of causes below"));

    /** The lines of an NCCL log that say something worth knowing, each with what it means (at most {@code max}). */
    public static Table explain(List<String> log, int max) {
        StringColumn line = StringColumn.create("line"), meaning = StringColumn.create("what it says");
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (String l : log) {
            for (Known k : KNOWN) {
                Matcher m = k.pattern().matcher(l);
                if (m.find()) {
                    String key = k.meaning() + (k.pattern().pattern().startsWith("Channel") ? "" : l.replaceAll("^.*?NCCL", ""));
                    if (k.pattern().pattern().startsWith("Channel") && !seen.add("channel" + l.replaceAll(".*\\[rank (\\d)\\].*", "$1"))) break;
                    if (!seen.add(key)) break;
                    line.append(l.length() > 160 ? l.substring(0, 160) + " ..." : l);
                    meaning.append(k.meaning());
                    break;
                }
            }
            if (line.size() >= max) break;
        }
        return Table.create("NCCL_DEBUG=INFO, read together", line, meaning);
    }

    /** The NCCL results a failed NCCL call most often returns, in NCCL's words with the toolkit's hint for each (from NcclException). */
    public static Table errorCauses() {
        StringColumn code = StringColumn.create("ncclResult"), message = StringColumn.create("the toolkit's error message");
        int[] codes = {2, 1, 5, 4, 6, 3};
        String[] words = {"unhandled system error", "unhandled cuda error", "invalid usage", "invalid argument",
                "remote process exited or there was a network error", "internal error"};
        for (int i = 0; i < codes.length; i++) {
            code.append(codes[i] + " (" + words[i] + ")");
            String m = new NcclException(0, "ncclCommInitRank", codes[i], "").getMessage();
            message.append(m.substring(m.indexOf("Hint:") >= 0 ? m.indexOf("Hint:") : 0));
        }
        return Table.create("NCCL errors and their usual causes", code, message);
    }

    // ---- the exercise: uneven shards ------------------------------------------------------------------------------

    /** How many batches rank {@code rank} holds in the notebook ({@link Lesson06Steps#batchesOn}). */
    public static int batchesOn(int rank) {
        return Lesson06Steps.batchesOn(rank);
    }

    /** The student's answer: the number of steps every rank takes, from this rank's own batch count. */
    @FunctionalInterface
    public interface Steps {
        int of(MpiComm comm, int myBatches);
    }

    /**
     * Checks the student's function on the notebook's ranks, then on 1 to 4 ranks as threads with other batch counts
     * ({@link Lesson06Steps}). Collective: every rank of the notebook calls it.
     */
    public static Check checkSteps(Steps student) {
        try (MpjCommunicator world = MpjCommunicator.world()) {
            return Lesson06Steps.check(world, student);
        }
    }

    /** The verdict for rank {@code rank}, given the steps every rank plans ({@code stepsByRank[r]}: rank r's). */
    public static Check checkSteps(int rank, int[] stepsByRank) {
        int[] batches = new int[stepsByRank.length];
        for (int r = 0; r < batches.length; r++) batches[r] = batchesOn(r);
        return Lesson06Steps.verdict(rank, stepsByRank, batches).toCheck();
    }
}
