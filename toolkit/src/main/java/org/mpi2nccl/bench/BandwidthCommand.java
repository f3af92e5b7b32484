package org.mpi2nccl.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.MpjJobException;
import org.mpi2nccl.launch.MpjLaunchException;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;

/**
 * {@code mpi2nccl bandwidth}: the bandwidth harness on N MPJ ranks, nccl-tests style, for any of the
 * communicators ({@link RankCommunicators#NAMES}). Prints nccl-tests' table per communicator, writes
 * {@code bandwidth.csv} and {@code busbw.png} (one line per communicator) into {@code --out}, and fails when a
 * result was wrong.
 */
@Command(name = "bandwidth", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Bus bandwidth of collectives, nccl-tests style, for MPJ, the ring and NCCL on N MPJ ranks.",
                "Example: mpi2nccl bandwidth -np 2 --comms nccl,mpj-staged,ring -b 8 -e 1G --max-host 256M --out results"})
public final class BandwidthCommand implements Callable<Integer> {
    @Option(names = {"-np", "--ranks"}, description = "ranks (default ${DEFAULT-VALUE})", defaultValue = "2")
    int ranks;

    @Option(names = "--comms", split = ",", defaultValue = "mpj,ring",
            description = "communicators, comma-separated: mpj, mpj-staged, ring, ring-staged, ring-shm, naive, nccl, nccl-checked (default ${DEFAULT-VALUE})")
    List<String> comms;

    @Option(names = {"-dev", "--device"}, converter = BandwidthCommand.DeviceArg.class,
            description = "MPJ device: multicore or niodev (default: niodev when a communicator uses the GPU, else multicore)")
    MpjDevice device;

    @Option(names = {"-c", "--collective"}, defaultValue = "allReduce",
            description = "allReduce, broadcast, reduce, allGather, reduceScatter, sendRecv (default ${DEFAULT-VALUE})")
    String collective;

    @Option(names = {"-d", "--type"}, defaultValue = "float32", description = "int8, int32, int64, float32, float64 (default ${DEFAULT-VALUE})")
    String type;

    @Option(names = {"-o", "--op"}, defaultValue = "sum", description = "sum, avg, max, min, prod (default ${DEFAULT-VALUE})")
    String op;

    @Option(names = {"-r", "--root"}, defaultValue = "0", description = "root of broadcast and reduce (default ${DEFAULT-VALUE})")
    int root;

    @Option(names = {"-b", "--minbytes"}, defaultValue = "8", description = "smallest size (default ${DEFAULT-VALUE})")
    String minBytes;

    @Option(names = {"-e", "--maxbytes"}, defaultValue = "64M", description = "largest size (default ${DEFAULT-VALUE})")
    String maxBytes;

    @Option(names = {"-f", "--stepfactor"}, defaultValue = "2", description = "size multiplier (default ${DEFAULT-VALUE})")
    double factor;

    @Option(names = "--max-host", defaultValue = "256M",
            description = "largest size for host and host-staged communicators, which are 100-1000x slower (default ${DEFAULT-VALUE})")
    String maxHost;

    @Option(names = {"-w", "--warmup_iters"}, defaultValue = "5", description = "untimed calls per size (default ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = {"-n", "--iters"}, defaultValue = "20", description = "timed calls per size, at most (default ${DEFAULT-VALUE})")
    int iters;

    @Option(names = "--min-iters", defaultValue = "3", description = "timed calls per size, at least (default ${DEFAULT-VALUE})")
    int minIters;

    @Option(names = "--seconds-per-size", defaultValue = "5",
            description = "fewer timed calls when they would take longer than this (default ${DEFAULT-VALUE})")
    double secondsPerSize;

    @Option(names = "--no-in-place", description = "measure out of place only")
    boolean noInPlace;

    @Option(names = "--no-check", description = "do not check the results")
    boolean noCheck;

    @Option(names = "--rank-heap", defaultValue = "auto", description = "-Xmx of each rank JVM (default: auto)")
    String rankHeap;

    @Option(names = "--timeout", defaultValue = "60m", converter = BandwidthCommand.DurationArg.class,
            description = "whole job (default ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(names = "--out", description = "folder for bandwidth.csv and busbw.png (default: print only)")
    Path out;

    @Option(names = "--title", description = "plot title")
    String title;

    @Override
    public Integer call() throws Exception {
        for (String c : comms) {
            if (!RankCommunicators.NAMES.contains(c)) {
                System.err.println("bandwidth: unknown communicator '" + c + "'; known: " + RankCommunicators.NAMES);
                return 2;
            }
        }
        boolean gpu = comms.stream().anyMatch(RankCommunicators::usesGpu);
        MpjDevice dev = device != null ? device : gpu ? MpjDevice.NIODEV : MpjDevice.MULTICORE;
        if (gpu && dev == MpjDevice.MULTICORE) {
            System.err.println("bandwidth: GPU communicators need -dev niodev (one JVM per rank: the CUDA and NCCL"
                    + " bindings load in one class loader only)");
            return 2;
        }
        List<String> args = new ArrayList<>(List.of("comms=" + String.join(",", comms), "collective=" + collective,
                "type=" + type, "op=" + op, "root=" + root, "min=" + minBytes, "max=" + maxBytes, "factor=" + factor,
                "max-host=" + maxHost, "warmup=" + warmup, "iters=" + iters, "min-iters=" + minIters,
                "seconds-per-size=" + secondsPerSize, "in-place=" + !noInPlace, "check=" + !noCheck));
        BandwidthRankMain.spec(BandwidthRankMain.parse(args));       // bad options fail here, before any JVM starts
        String heap = rankHeap.equals("auto") ? autoHeap(dev) : rankHeap;
        JobResult r;
        try {
            r = Mpj.launch(BandwidthRankMain.class).ranks(ranks).device(dev).args(args).jvmArgs("-Xmx" + heap)
                    .timeout(timeout).onLine(l -> {
                        if (l.rank() == 0 || l.isStderr()) {
                            System.out.println(l);
                        }
                    }).run();
        } catch (MpjLaunchException | MpjJobException e) {
            System.err.println("bandwidth: " + e.getMessage());
            return 1;
        }
        BenchResults res = new BenchResults(BandwidthRankMain.rows(r.reports()));
        System.out.print(res.text());
        if (out != null) {
            Files.createDirectories(out);
            res.writeCsv(out.resolve("bandwidth.csv"));
            String t = title != null ? title : collective + " bus bandwidth, " + ranks + " ranks";
            res.writePng(out.resolve("busbw.png"), t, null, "out-of-place");
            System.out.println("wrote " + out.resolve("bandwidth.csv") + " and " + out.resolve("busbw.png"));
        }
        if (!res.allCorrect()) {
            System.err.println("bandwidth: WRONG RESULTS (see the #wrong columns)");
            return 1;
        }
        return 0;
    }

    /** A third of the machine's memory shared by the rank JVMs (multicore: one JVM), at most 16 GiB each. */
    private String autoHeap(MpjDevice dev) {
        long total = ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getTotalMemorySize();
        long per = total / 3 / (dev == MpjDevice.MULTICORE ? 1 : ranks);
        return Math.max(256, Math.min(16L << 10, per >> 20)) + "m";
    }

    /** "multicore" or "niodev". */
    static final class DeviceArg implements ITypeConverter<MpjDevice> {
        @Override
        public MpjDevice convert(String value) {
            return MpjDevice.parse(value);
        }
    }

    /** "90s", "60m", "2h" or seconds. */
    static final class DurationArg implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String v) {
            String t = v.trim().toLowerCase(java.util.Locale.ROOT);
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
            }
            long n = Long.parseLong(t.replaceAll("[smh]$", ""));
            return t.endsWith("h") ? Duration.ofHours(n) : t.endsWith("m") ? Duration.ofMinutes(n) : Duration.ofSeconds(n);
        }
    }
}
