package org.mpi2nccl.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.RankLine;

/**
 * The bandwidth harness as one MPJ job, from Java (a notebook cell, a test) or the {@code bandwidth} command:
 * <pre>{@code
 * BenchResults r = BandwidthJob.of("mpj", "ring", "naive").ranks(4).sizes("8", "16M", 4).run();
 * display(r.chart("all-reduce on 4 ranks", null, "out-of-place"));
 * }</pre>
 * Communicator names as in {@link RankCommunicators}; GPU ones run on niodev (a JVM per rank).
 */
public final class BandwidthJob {
    private final List<String> comms;
    private int ranks = 2;
    private MpjDevice device;
    private String collective = "allReduce";
    private String type = "float32";
    private String op = "sum";
    private int root;
    private String min = "8";
    private String max = "64M";
    private double factor = 2;
    private String maxHost = "256M";
    private int warmup = 5;
    private int iters = 20;
    private int minIters = 3;
    private double secondsPerSize = 5;
    private boolean inPlace = true;
    private boolean check = true;
    private String rankHeap;
    private Duration timeout = Duration.ofMinutes(60);
    private java.nio.file.Path machines;
    private int daemonPort;

    private BandwidthJob(List<String> comms) {
        for (String c : comms) {
            if (!RankCommunicators.NAMES.contains(c)) {
                throw new IllegalArgumentException("bandwidth: unknown communicator '" + c + "'; known: " + RankCommunicators.NAMES);
            }
        }
        this.comms = List.copyOf(comms);
    }

    public static BandwidthJob of(String... communicators) {
        return new BandwidthJob(List.of(communicators));
    }

    public static BandwidthJob of(List<String> communicators) {
        return new BandwidthJob(communicators);
    }

    public BandwidthJob ranks(int n) {
        this.ranks = n;
        return this;
    }

    /** MPJ device; default niodev when a communicator uses the GPU, else multicore. */
    public BandwidthJob device(MpjDevice d) {
        this.device = d;
        return this;
    }

    public BandwidthJob collective(String c) {
        this.collective = c;
        return this;
    }

    public BandwidthJob type(String t) {
        this.type = t;
        return this;
    }

    public BandwidthJob op(String o) {
        this.op = o;
        return this;
    }

    public BandwidthJob root(int r) {
        this.root = r;
        return this;
    }

    /** Sizes as "8", "64K", "16M", "1G". */
    public BandwidthJob sizes(String from, String to, double stepFactor) {
        this.min = from;
        this.max = to;
        this.factor = stepFactor;
        return this;
    }

    /**
     * Largest size for host and host-staged communicators: their data crosses host memory, far slower than NCCL's
     * GPU-to-GPU links, so large sizes would take most of the run (results/bandwidth-2gpu has both).
     */
    public BandwidthJob maxHostBytes(String b) {
        this.maxHost = b;
        return this;
    }

    public BandwidthJob iterations(int warmupCalls, int timedCalls, int atLeast, double maxSecondsPerSize) {
        this.warmup = warmupCalls;
        this.iters = timedCalls;
        this.minIters = atLeast;
        this.secondsPerSize = maxSecondsPerSize;
        return this;
    }

    public BandwidthJob inPlace(boolean alsoInPlace) {
        this.inPlace = alsoInPlace;
        return this;
    }

    public BandwidthJob check(boolean on) {
        this.check = on;
        return this;
    }

    /** -Xmx of each rank JVM, e.g. "4g" (default: a third of the machine's memory shared by the JVMs, at most 16g). */
    public BandwidthJob rankHeap(String xmx) {
        this.rankHeap = xmx;
        return this;
    }

    public BandwidthJob timeout(Duration t) {
        this.timeout = t;
        return this;
    }

    /** niodev across hosts: the ranks go to the hosts of {@code machinesFile}, whose MPJ daemons run at {@code port}. */
    public BandwidthJob hosts(java.nio.file.Path machinesFile, int port) {
        this.machines = machinesFile;
        this.daemonPort = port;
        return this;
    }

    /** The MPJ device this job will use. */
    public MpjDevice effectiveDevice() {
        boolean gpu = comms.stream().anyMatch(RankCommunicators::usesGpu);
        MpjDevice dev = device != null ? device : gpu ? MpjDevice.NIODEV : MpjDevice.MULTICORE;
        if (gpu && dev == MpjDevice.MULTICORE) {
            throw new IllegalArgumentException("bandwidth: GPU communicators need the niodev device (one JVM per rank:"
                    + " the CUDA and NCCL bindings load in one class loader only)");
        }
        return dev;
    }

    /** Checks every setting and the device now, before any JVM starts; throws IllegalArgumentException naming the problem. */
    public BandwidthJob validate() {
        rankArgs();
        effectiveDevice();
        return this;
    }

    List<String> rankArgs() {
        List<String> a = new ArrayList<>(List.of("comms=" + String.join(",", comms), "collective=" + collective,
                "type=" + type, "op=" + op, "root=" + root, "min=" + min, "max=" + max, "factor=" + factor,
                "max-host=" + maxHost, "warmup=" + warmup, "iters=" + iters, "min-iters=" + minIters,
                "seconds-per-size=" + secondsPerSize, "in-place=" + inPlace, "check=" + check));
        BandwidthRankMain.Args parsed = BandwidthRankMain.parse(a);
        BenchSpec first = BandwidthRankMain.spec(parsed);          // bad settings fail here, before any JVM starts
        BandwidthRankMain.collectives(parsed).forEach(first::collective);
        return a;
    }

    /** Runs the job quietly. */
    public BenchResults run() {
        return run(null);
    }

    /** Runs the job; {@code lines} gets rank 0's output and every rank's errors as they come. */
    public BenchResults run(Consumer<RankLine> lines) {
        MpjDevice dev = effectiveDevice();
        List<String> args = rankArgs();
        String heap = rankHeap != null ? rankHeap : autoHeap(dev);
        var launch = Mpj.launch(BandwidthRankMain.class).ranks(ranks).device(dev).args(args).jvmArgs("-Xmx" + heap)
                .timeout(timeout).onLine(l -> {
                    if (lines != null && (l.rank() == 0 || l.isStderr())) {
                        lines.accept(l);
                    }
                });
        if (machines != null) {
            launch.machinesFile(machines).runningDaemons(daemonPort);
        }
        JobResult r = launch.run();
        return new BenchResults(BandwidthRankMain.rows(r.reports()));
    }

    private String autoHeap(MpjDevice dev) {
        long total;
        try {
            total = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                    .getOperatingSystemMXBean()).getTotalMemorySize();
        } catch (LinkageError | ClassCastException e) {
            return "4g";          // a runtime without jdk.management: a size that suits most machines
        }
        long per = total / 3 / (dev == MpjDevice.MULTICORE ? 1 : ranks);
        return Math.max(256, Math.min(16L << 10, per >> 20)) + "m";
    }
}
