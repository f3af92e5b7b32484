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
import org.mpi2nccl.launch.Report;

/**
 * The bench's rank program (started by {@link BandwidthCommand} through the launcher): makes each named
 * communicator in turn, runs the harness on it, and rank 0 reports every row ({@link Report#emit}).
 * Arguments are {@code key=value} pairs (see {@link BandwidthCommand} for their meaning).
 */
public final class BandwidthRankMain {
    private BandwidthRankMain() {
    }

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        Map<String, String> a = parse(List.of(rest));
        Duration timeout = Duration.ofSeconds(Long.parseLong(a.getOrDefault("timeout", "300")));
        MpjCommunicator mpj = MpjCommunicator.builder().timeout(timeout).build();
        BenchSpec base = spec(a);          // the first collective's; the others replace it in turn
        long hostCap = BenchSpec.parseBytes(a.getOrDefault("max-host", a.getOrDefault("max", "64M")));
        List<Collective> collectives = collectives(a);
        for (String name : a.getOrDefault("comms", "mpj,ring").split(",")) {
            BenchSpec sized = RankCommunicators.usesGpu(name) && !name.endsWith("-staged") ? base
                    : base.sizes(base.minBytes(), Math.max(base.minBytes(), Math.min(base.maxBytes(), hostCap)), base.factor());
            // one communicator for all the collectives: NCCL's init and the rank JVMs' start are paid once
            try (RankCommunicators.Made made = RankCommunicators.make(name, mpj, timeout)) {
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

    /** {@code key=value} arguments as a map. */
    static Map<String, String> parse(List<String> args) {
        Map<String, String> a = new LinkedHashMap<>();
        for (String s : args) {
            int eq = s.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("bandwidth rank: argument '" + s + "' is not key=value");
            }
            a.put(s.substring(0, eq), s.substring(eq + 1));
        }
        return a;
    }

    static BenchSpec spec(Map<String, String> a) {
        BenchSpec s = BenchSpec.defaults()
                .collective(collectives(a).get(0))
                .type(DataType.valueOf(a.getOrDefault("type", "float32").toUpperCase(java.util.Locale.ROOT)))
                .op(Reduction.parse(a.getOrDefault("op", "sum")))
                .root(Integer.parseInt(a.getOrDefault("root", "0")))
                .sizes(BenchSpec.parseBytes(a.getOrDefault("min", "8")), BenchSpec.parseBytes(a.getOrDefault("max", "64M")),
                        Double.parseDouble(a.getOrDefault("factor", "2")))
                .iterations(Integer.parseInt(a.getOrDefault("warmup", "5")), Integer.parseInt(a.getOrDefault("iters", "20")),
                        Integer.parseInt(a.getOrDefault("min-iters", "3")), Double.parseDouble(a.getOrDefault("seconds-per-size", "5")))
                .placements(!a.getOrDefault("in-place", "true").equals("false"), true)
                .check(!a.getOrDefault("check", "true").equals("false"));
        return s;
    }

    /** The collectives to measure, in order: {@code collective=allReduce,allGather,...} (each checked; default allReduce). */
    static List<Collective> collectives(Map<String, String> a) {
        List<Collective> out = new ArrayList<>();
        for (String c : a.getOrDefault("collective", "allReduce").split(",")) {
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
