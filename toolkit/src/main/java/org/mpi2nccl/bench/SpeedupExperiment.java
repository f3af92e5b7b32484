package org.mpi2nccl.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.parallel.DataChecks;
import org.mpi2nccl.parallel.gpu.Route;
import org.mpi2nccl.launch.JobBuilder;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.MpjJobException;
import org.mpi2nccl.launch.MpjLaunchException;
import org.mpi2nccl.launch.RankLine;

/**
 * The lessons' main experiment: train the same model on 1, 2, ... ranks over each route and measure how much
 * faster the epochs get. Each rank computes the same batch whatever the number of ranks (weak scaling, as
 * when adding GPUs), so N ranks finish an epoch in N times fewer steps: ideally N times faster, less what
 * communication costs. One rank trains once, without any communication (the baseline every route is
 * compared with); every other (route, ranks) pair is a separate MPJ job running {@link SpeedupRank}.
 *
 * <p>GPUs: one niodev JVM per rank, rank r on GPU r % count, the NCCL and MPI (host-staged) routes.
 * CPU only: MPJ multicore ranks (threads of one JVM) over the MPI route, each rank computing on <b>one core</b>
 * (one BLAS thread, no fork-join workers), so that adding a rank adds a core as adding a GPU adds a GPU.
 */
public final class SpeedupExperiment {
    private final SpeedupConfig config;
    private final List<Route> routes;
    private final List<Integer> rankCounts;
    private ProgressReporter progress = ProgressReporter.silent();
    private Consumer<String> log = System.out::println;
    private Duration runTimeout = Duration.ofMinutes(20);
    private int rounds = 1;
    private int firstRound = 1;

    public SpeedupExperiment(SpeedupConfig config, List<Route> routes, List<Integer> rankCounts) {
        config.validate();
        if (routes.isEmpty()) throw new IllegalArgumentException("no route to measure: give at least one of mpi, shm, ring, nccl");
        if (rankCounts.isEmpty()) throw new IllegalArgumentException("no rank count to measure");
        for (int n : rankCounts) {
            if (n < 1) throw new IllegalArgumentException("rank counts must be >= 1, got " + n);
            config.batchFor(n);      // a fixed total batch smaller than the ranks, or not dividing: say so now
        }
        boolean gpu = config.device.equals("cuda");
        int max = rankCounts.stream().mapToInt(Integer::intValue).max().orElse(1);
        if (gpu) {
            int gpus = Cuda.deviceCount();
            if (gpus == 0) throw new IllegalArgumentException("--device cuda, but no GPU is usable here: " + Cuda.unavailableReason());
            if (routes.contains(Route.NCCL)) DataChecks.ranksFitGpus(max, gpus);
        } else if (routes.contains(Route.NCCL)) {
            throw new IllegalArgumentException("the NCCL route needs GPUs (--device cuda); on CPUs use the MPI or ring route");
        }
        // decided here, where the machine's cores are seen: a CPU rank's JVM is told it has one
        config.overlap = config.overlapFor(max);
        this.config = config;
        this.routes = List.copyOf(routes);
        this.rankCounts = rankCounts.stream().distinct().sorted().toList();
    }

    /**
     * The embedded default: with GPUs, the lesson CNN on Fashion-MNIST over NCCL and MPI on 1, 2, 4 ... all GPUs (steps
     * replayed from CUDA graphs); without, a Fashion-MNIST subset on 1 and 2 CPU ranks (4 where there are 4 cores)
     * over MPI, small enough for a machine of two cores.
     */
    public static SpeedupExperiment defaults() {
        SpeedupConfig c = defaultConfig();
        return new SpeedupExperiment(c, routesFor(c.device), rankCountsFor(c.device));
    }

    /** The settings of {@link #defaults()}: {@code mpi2nccl run} starts from these too. */
    public static SpeedupConfig defaultConfig() {
        SpeedupConfig c = new SpeedupConfig();
        if (Cuda.isAvailable()) {
            c.device = "cuda";
            return c;
        }
        c.device = "cpu";
        c.channels = new int[] {8, 16};
        c.trainExamples = 8000;
        c.testExamples = 2000;
        c.epochs = 3;
        c.batchPerRank = 32;
        c.lr = 0.02f;
        return c;
    }

    /**
     * GPUs: NCCL and MPI (host-staged). CPUs: the ring over shared memory (what NCCL's SHM transport does on one
     * host) and MPI (MPJ Express's Allreduce), so a laptop shows the same contrast as the GPUs.
     */
    public static List<Route> routesFor(String device) {
        return device.equals("cuda") ? List.of(Route.NCCL, Route.MPI) : List.of(Route.SHM, Route.MPI);
    }

    /** GPUs: 1, 2, 4 ... and all of them; CPUs: {@link #cpuRankCounts()}. */
    public static List<Integer> rankCountsFor(String device) {
        if (!device.equals("cuda")) return cpuRankCounts();
        int gpus = Math.max(1, Cuda.deviceCount());   // none: 1, and the constructor says that no GPU is usable
        List<Integer> ranks = new ArrayList<>();
        for (int n = 1; n <= gpus; n *= 2) ranks.add(n);
        if (!ranks.contains(gpus)) ranks.add(gpus);
        return ranks;
    }

    /** 1, 2, 4 ranks as far as there are cores (at least 1 and 2: two ranks share one core on a 1-core machine). */
    public static List<Integer> cpuRankCounts() {
        int cores = Runtime.getRuntime().availableProcessors();
        List<Integer> out = new ArrayList<>(List.of(1, 2));
        if (cores >= 4) out.add(4);
        return out;
    }

    public SpeedupConfig config() { return config; }

    public List<Route> routes() { return routes; }

    public List<Integer> rankCounts() { return rankCounts; }

    /** Where the per-epoch progress bars go (default: none). */
    public SpeedupExperiment progress(ProgressReporter p) {
        this.progress = p;
        return this;
    }

    /** Where the ranks' lines and the experiment's messages go (default: stdout). */
    public SpeedupExperiment log(Consumer<String> l) {
        this.log = l;
        return this;
    }

    /**
     * Runs every (route, ranks) pair {@code n} times, in turn: 1 rank, 2, ..., then again (see {@link SpeedupResults}:
     * the summary pools the rounds and gives each one's speedup range).
     */
    public SpeedupExperiment rounds(int n) {
        if (n < 1) throw new IllegalArgumentException("--rounds must be at least 1, got " + n);
        this.rounds = n;
        return this;
    }

    public int rounds() { return rounds; }

    /**
     * The number the first round gets (default 1): a script that alternates this experiment with a peer's (PyTorch
     * DDP) runs one round at a time and numbers them, so that the merged rows pair each round with the peer's.
     */
    public SpeedupExperiment firstRound(int k) {
        if (k < 1) throw new IllegalArgumentException("--first-round must be at least 1, got " + k);
        this.firstRound = k;
        return this;
    }

    /** Longest a single (route, ranks) run may take. */
    public SpeedupExperiment runTimeout(Duration d) {
        this.runTimeout = d;
        return this;
    }

    /** Runs every (route, ranks) pair in turn, each round; a failed run is reported and the others still run. */
    public SpeedupResults run() {
        boolean gpu = config.device.equals("cuda");
        log.accept("Speedup experiment: " + config.describe());
        log.accept(gpu ? "GPUs: " + Cuda.deviceCount() + " x " + Cuda.device(0).name + "; one niodev JVM per rank, rank r on GPU r"
                : "No GPU: MPJ multicore ranks on the CPU, one core per rank (" + Runtime.getRuntime().availableProcessors()
                        + " cores here), gradients all-reduced through MPI in host memory.");
        SpeedupResults results = new SpeedupResults(config.describe(), gpu ? Cuda.device(0).name + " x" + Cuda.deviceCount() : cpuName());
        // The single rank communicates with nobody: run it on the MPI route where there is one, so that it needs
        // no NCCL set-up (and a broken NCCL cannot take the baseline down with it).
        Route baseline = routes.contains(Route.MPI) ? Route.MPI : routes.get(0);
        for (int round = firstRound; round < firstRound + rounds; round++) {
            String of = rounds > 1 ? " round " + round + "/" + (firstRound + rounds - 1) : firstRound > 1 ? " round " + round : "";
            for (int n : rankCounts) {
                List<Route> these = n == 1 ? List.of(baseline) : routes;
                for (Route route : these) {
                    String label = (n == 1 ? "1 rank" : route.label() + " x" + n) + of;
                    log.accept("== " + label + (n == 1 ? " (no communication: the baseline of every route)" : " (" + route.description() + ")"));
                    try {
                        JobResult r = launch(route, n, label, gpu);
                        String name = n == 1 ? SpeedupResults.SINGLE : route.label();
                        for (Map<String, Object> report : r.reports()) {
                            Map<String, Object> row = new java.util.LinkedHashMap<>(report);
                            row.put("round", round);
                            if (((Number) row.get("rank")).intValue() == 0) results.add(name, row);
                            results.addRank(name, row);
                        }
                        if (r.reports().isEmpty()) results.failed(label, "the ranks ended without reporting an epoch");
                    } catch (MpjJobException | MpjLaunchException | IllegalArgumentException | IllegalStateException e) {
                        log.accept(label + " failed: " + e.getMessage());
                        results.failed(label, e.getMessage());
                    }
                }
            }
        }
        return results;
    }

    private JobResult launch(Route route, int n, String label, boolean gpu) {
        EpochBars bars = new EpochBars(label);
        JobBuilder job = Mpj.launch(SpeedupRank.class).ranks(n).device(gpu ? MpjDevice.NIODEV : MpjDevice.MULTICORE)
                .args(route.label(), config.toJson()).timeout(runTimeout).onLine(bars::onLine);
        if (!gpu) {
            // One core per rank: the CPU backend sizes its parallelism from the processor count the JVM reports, so
            // with 1 it computes on the rank's own thread only; BLAS single-threaded too.
            job.jvmArgs("-XX:ActiveProcessorCount=1").env("OPENBLAS_NUM_THREADS", "1").env("OMP_NUM_THREADS", "1");
        }
        // extra options for the rank JVMs (garbage collector, heap), for experiments with the host side of a step
        String extra = System.getenv("MPI2NCCL_RANK_JAVA_OPTS");
        if (extra != null && !extra.isBlank()) job.jvmArgs(extra.trim().split("\\s+"));
        try {
            return job.run();
        } finally {
            bars.close();
        }
    }

    private static String cpuName() {
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim() + ", " + Runtime.getRuntime().availableProcessors() + " cores";
                }
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux: the generic name below
        }
        return "CPU, " + Runtime.getRuntime().availableProcessors() + " cores";
    }

    /** Turns rank 0's progress lines into one bar per epoch; passes every other line to the log. */
    private final class EpochBars {
        private final String label;
        private ProgressReporter.Bar bar;
        private int epoch;

        EpochBars(String label) {
            this.label = label;
        }

        synchronized void onLine(RankLine line) {
            String t = line.text();
            if (line.rank() == 0 && t.startsWith(SpeedupRank.PROGRESS)) {
                String[] p = t.substring(SpeedupRank.PROGRESS.length()).trim().split(" ");
                int e = Integer.parseInt(p[0]), b = Integer.parseInt(p[1]), total = Integer.parseInt(p[2]), epochs = Integer.parseInt(p[3]);
                if (e != epoch || bar == null) {
                    if (bar != null) bar.close();
                    epoch = e;
                    bar = progress.start(String.format(Locale.ROOT, "%s epoch %d/%d", label, e, epochs), total);
                }
                bar.update(b, "");
                return;
            }
            if (bar != null) {
                bar.close();
                bar = null;
            }
            log.accept(line.toString());
        }

        synchronized void close() {
            if (bar != null) bar.close();
            bar = null;
        }
    }
}
