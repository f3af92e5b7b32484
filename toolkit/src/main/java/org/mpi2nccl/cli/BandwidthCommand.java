package org.mpi2nccl.cli;

import org.mpi2nccl.launch.Converters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.mpi2nccl.bench.BandwidthJob;
import org.mpi2nccl.bench.BenchResults;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.MpjJobException;
import org.mpi2nccl.launch.MpjLaunchException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mpi2nccl bandwidth}: the bandwidth harness on N MPJ ranks, nccl-tests style, for any of the
 * communicators ({@link org.mpi2nccl.bench.RankCommunicators#NAMES}). Prints nccl-tests' table per communicator, writes
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
            description = "communicators, comma-separated: mpj, mpj-staged, ring, ring-staged, shm, naive, nccl, nccl-checked (default ${DEFAULT-VALUE})")
    List<String> comms;

    @Option(names = {"-dev", "--device"}, converter = Converters.MpjDeviceConverter.class,
            description = "MPJ device: multicore or niodev (default: niodev when a communicator uses the GPU, else multicore)")
    MpjDevice device;

    @Option(names = {"-c", "--collective"}, defaultValue = "allReduce",
            description = {"allReduce, broadcast, reduce, allGather, reduceScatter, sendRecv (default ${DEFAULT-VALUE});",
                    "several, comma-separated, run one after the other in the same job"})
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

    @Option(names = "--timeout", defaultValue = "60m", converter = Converters.DurationConverter.class,
            description = "whole job (default ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(names = "--machines", description = "niodev across hosts: machines file, one host a line (with --running-daemons)")
    Path machines;

    @Option(names = "--running-daemons", paramLabel = "PORT", description = "with --machines: the MPJ daemons running on every host at PORT")
    Integer runningDaemons;

    @Option(names = "--out", description = "folder for bandwidth.csv and busbw.png (default: print only)")
    Path out;

    @Option(names = "--title", description = "plot title")
    String title;

    @Override
    public Integer call() throws Exception {
        BandwidthJob job;
        try {
            if (ranks < 1) throw new IllegalArgumentException("-np must be at least 1, got " + ranks);
            if (root < 0 || root >= ranks) throw new IllegalArgumentException("--root must be a rank, 0.." + (ranks - 1) + ", got " + root);
            if (timeout.isNegative() || timeout.isZero()) throw new IllegalArgumentException("--timeout must be positive, got " + timeout);
            job = BandwidthJob.of(comms).ranks(ranks).device(device).collective(collective).type(type).op(op).root(root)
                    .sizes(minBytes, maxBytes, factor).maxHostBytes(maxHost).iterations(warmup, iters, minIters, secondsPerSize)
                    .inPlace(!noInPlace).check(!noCheck).timeout(timeout);
            if ((machines == null) != (runningDaemons == null)) {
                throw new IllegalArgumentException("--machines and --running-daemons go together (the hosts and their daemons' port)");
            }
            if (machines != null) {
                job.hosts(machines, runningDaemons);
            }
            if (!rankHeap.equals("auto")) {
                job.rankHeap(rankHeap);
            }
            job.validate();
        } catch (IllegalArgumentException e) {
            System.err.println("bandwidth: " + e.getMessage());
            return 2;
        }
        BenchResults res;
        try {
            res = job.run(System.out::println);
        } catch (MpjLaunchException | MpjJobException e) {
            System.err.println("bandwidth: " + e.getMessage());
            return 1;
        }
        System.out.print(res.text());
        if (out != null) {
            Files.createDirectories(out);
            res.writeCsv(out.resolve("bandwidth.csv"));
            String t = title != null ? title : collective + " bus bandwidth, " + ranks + " ranks";
            boolean png = res.tryWritePng(out.resolve("busbw.png"), t, null, "out-of-place");
            System.out.println("wrote " + out.resolve("bandwidth.csv") + (png ? " and " + out.resolve("busbw.png") : ""));
        }
        if (!res.allCorrect()) {
            System.err.println("bandwidth: WRONG RESULTS (see the #wrong columns)");
            return 1;
        }
        return 0;
    }
}
