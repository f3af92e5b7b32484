package org.mpi2nccl.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import mpi.MPI;
import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.launch.Converters;
import org.mpi2nccl.launch.RankArgs;
import org.mpi2nccl.launch.Report;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The bench's rank program (started by {@link BandwidthCommand} through the launcher): makes each named
 * communicator in turn, runs the harness on it, and rank 0 reports every row ({@link Report#emit}).
 * Arguments are {@code key=value} pairs, parsed by picocli ({@link Args}).
 */
public final class BandwidthRankMain {
    private BandwidthRankMain() {
    }

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        Args a = parse(List.of(rest));
        MpjCommunicator mpj = MpjCommunicator.builder().timeout(a.timeout).build();
        BenchSpec base = spec(a);          // the first collective's; the others replace it in turn
        long hostCap = BenchSpec.parseBytes(a.maxHost != null ? a.maxHost : a.max);
        List<Collective> collectives = collectives(a);
        for (String name : a.comms) {
            BenchSpec sized = RankCommunicators.usesGpu(name) && !name.endsWith("-staged") ? base
                    : base.sizes(base.minBytes(), Math.max(base.minBytes(), Math.min(base.maxBytes(), hostCap)), base.factor());
            // one communicator for all the collectives: NCCL's init and the rank JVMs' start are paid once
            try (RankCommunicators.Made made = RankCommunicators.make(name, mpj, a.timeout)) {
                if (mpj.rank() == 0) {
                    System.out.println("bench: " + name + " on " + mpj.size() + " ranks, " + made.memory().name() + " memory, "
                            + String.join(", ", collectives.stream().map(Collective::label).toList()) + " "
                            + BenchSpec.formatBytes(sized.minBytes()) + " .. " + BenchSpec.formatBytes(sized.maxBytes()));
                }
                if (made.communicator() instanceof org.mpi2nccl.comm.nccl.NcclCommunicator n) {
                    // every rank's own line (the launcher prefixes its rank): scripts/gpu/bandwidth.sh reads the init times from here
                    System.out.printf(java.util.Locale.ROOT, "bench: %s init on rank %d (cuda:%d): rendezvous %.1f ms,"
                            + " ncclCommInitRank %.1f ms, NCCL %s%n", name, n.rank(), n.device(), n.rendezvousNanos() / 1e6,
                            n.initNanos() / 1e6, org.mpi2nccl.comm.nccl.NcclNatives.version());
                }
                BandwidthHarness h = new BandwidthHarness(made.communicator(), mpj, name, made.memory());
                for (Collective c : collectives) {
                    h.run(sized.collective(c), row -> {
                        if (mpj.rank() == 0) {
                            Report.emit(toMap(row));
                        }
                    });
                }
            }
        }
        mpj.close();
        MPI.Finalize();
    }

    /**
     * The rank program's arguments, {@code key=value} as {@link BandwidthJob#rankArgs} passes them: each key a picocli
     * option name below, each a setting of {@link BandwidthJob}.
     */
    @Command(name = "BandwidthRankMain")
    static final class Args {
        @Option(names = "comms", split = ",", defaultValue = "mpj,ring") List<String> comms;
        @Option(names = "collective", split = ",", defaultValue = "allReduce") List<String> collective;
        @Option(names = "type", defaultValue = "float32") String type;
        @Option(names = "op", defaultValue = "sum") String op;
        @Option(names = "root", defaultValue = "0") int root;
        @Option(names = "min", defaultValue = "8") String min;
        @Option(names = "max", defaultValue = "64M") String max;
        @Option(names = "factor", defaultValue = "2") double factor;
        /** Largest size for host and host-staged communicators; none given: {@code max}. */
        @Option(names = "max-host") String maxHost;
        @Option(names = "warmup", defaultValue = "5") int warmup;
        @Option(names = "iters", defaultValue = "20") int iters;
        @Option(names = "min-iters", defaultValue = "3") int minIters;
        @Option(names = "seconds-per-size", defaultValue = "5") double secondsPerSize;
        @Option(names = "in-place", arity = "1", defaultValue = "true") boolean inPlace;
        @Option(names = "check", arity = "1", defaultValue = "true") boolean check;
        /** The MPJ communicator's timeout (90s, 5m, or plain seconds). */
        @Option(names = "timeout", defaultValue = "300", converter = Converters.DurationConverter.class) Duration timeout;
    }

    /** The {@code key=value} arguments; IllegalArgumentException naming a key it does not know or a value that does not parse. */
    static Args parse(List<String> args) {
        return RankArgs.parse(new Args(), args);
    }

    static BenchSpec spec(Args a) {
        return BenchSpec.defaults()
                .collective(collectives(a).get(0))
                .type(DataType.valueOf(a.type.toUpperCase(java.util.Locale.ROOT)))
                .op(Reduction.parse(a.op))
                .root(a.root)
                .sizes(BenchSpec.parseBytes(a.min), BenchSpec.parseBytes(a.max), a.factor)
                .iterations(a.warmup, a.iters, a.minIters, a.secondsPerSize)
                .placements(a.inPlace, true)
                .check(a.check);
    }

    /** The collectives to measure, in order: {@code collective=allReduce,allGather,...} (each checked; default allReduce). */
    static List<Collective> collectives(Args a) {
        List<Collective> out = new ArrayList<>();
        for (String c : a.collective) {
            if (!c.isBlank()) {
                out.add(Collective.parse(c));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("bandwidth: no collective named (e.g. collective=allReduce,allGather)");
        }
        return out;
    }

    static Map<String, Object> toMap(BenchRow r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("communicator", r.communicator());
        m.put("collective", r.collective());
        m.put("ranks", r.ranks());
        m.put("type", r.type());
        m.put("redop", r.op());
        m.put("root", r.root());
        m.put("size_bytes", r.bytes());
        m.put("count", r.count());
        m.put("placement", r.placement());
        m.put("iters", r.iters());
        m.put("time_us", r.timeUs());
        m.put("algbw_GBps", r.algbw());
        m.put("busbw_GBps", r.busbw());
        m.put("wrong", r.wrong());
        m.put("d2h_us", r.d2hUs());
        m.put("host_collective_us", r.collectiveUs());
        m.put("h2d_us", r.h2dUs());
        return m;
    }

    static BenchRow fromMap(Map<String, Object> m) {
        return new BenchRow((String) m.get("communicator"), (String) m.get("collective"), num(m, "ranks").intValue(),
                (String) m.get("type"), (String) m.get("redop"), num(m, "root").intValue(), num(m, "size_bytes").longValue(),
                num(m, "count").longValue(), (String) m.get("placement"), num(m, "iters").intValue(),
                num(m, "time_us").doubleValue(), num(m, "algbw_GBps").doubleValue(), num(m, "busbw_GBps").doubleValue(),
                num(m, "wrong").longValue(), num(m, "d2h_us").doubleValue(), num(m, "host_collective_us").doubleValue(),
                num(m, "h2d_us").doubleValue());
    }

    private static Number num(Map<String, Object> m, String k) {
        Object o = m.get(k);
        return o instanceof Number n ? n : Double.NaN;
    }

    static List<BenchRow> rows(List<Map<String, Object>> reports) {
        List<BenchRow> out = new ArrayList<>();
        for (Map<String, Object> m : reports) {
            if (m.containsKey("busbw_GBps")) {
                out.add(fromMap(m));
            }
        }
        return out;
    }
}
