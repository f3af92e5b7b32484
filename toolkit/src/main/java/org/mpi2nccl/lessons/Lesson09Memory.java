package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.ring.LocalRanks;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.FullyShardedDataParallel;
import org.mpi2nccl.parallel.ShardedOptimizer;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * Lesson 09's memory per rank, measured: the lesson's model trained one step with SGD with momentum by plain data
 * parallelism ({@link DataParallel}, lesson 03), ZeRO stage 1 ({@link ShardedOptimizer}, lesson 07) and ZeRO stage 3
 * ({@link FullyShardedDataParallel}), on 1 to 4 thread ranks. Every number is counted from the arrays a rank holds
 * after the step (parameters, gradients, the optimizer's state: {@link Optimizer#stateElements()}), and the peak of
 * parameters from the arrays alive during forward and backward; of the ranks, the one that holds most is shown.
 */
public final class Lesson09Memory {
    public static final List<String> METHODS = List.of("data parallel (03)", "ZeRO-1 (07)", "FSDP (09)");

    private Lesson09Memory() {
    }

    /** One method on one number of ranks: bytes one rank holds (the most of any rank). */
    public record Row(String method, int ranks, long params, long grads, long state, long peakParams) {
        /** What the rank keeps from one step to the next. */
        public long kept() {
            return params + grads + state;
        }

        Row max(Row o) {
            return new Row(method, ranks, Math.max(params, o.params), Math.max(grads, o.grads), Math.max(state, o.state),
                    Math.max(peakParams, o.peakParams));
        }
    }

    /** Every method on 1 to 4 thread ranks. */
    public static List<Row> measure() {
        List<Row> rows = new ArrayList<>();
        for (String method : METHODS) {
            for (int n : Lesson09.RANKS) {
                List<Row> ranks = LocalRanks.run(n, b -> b.timeout(Lesson09.TIMEOUT), c -> measure(method, c));
                rows.add(ranks.stream().reduce(Row::max).orElseThrow());
            }
        }
        return rows;
    }

    private static Row measure(String method, Communicator c) {
        Batch b = null;
        for (Batch x : Lesson07.loader(c.rank(), c.size(), Device.cpu()).epoch(0)) {
            if (b == null) b = x;
            else x.close();
        }
        SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
        try (ArrayScope scope = ArrayScope.open(); Batch batch = b) {
            if (method.equals(METHODS.get(2))) {
                try (FullyShardedDataParallel fsdp = new FullyShardedDataParallel(Lesson09.units(), c, Lesson09.sgd())) {
                    lossFn.forward(fsdp.forward(Tensor.constant(batch.x())), batch.y()).backward();
                    fsdp.backward();
                    fsdp.step();
                    List<Tensor> shards = fsdp.shards();
                    long params = bytes(shards, false);
                    return new Row(method, c.size(), params, bytes(shards, true), 4 * fsdp.inner().stateElements(),
                            params + fsdp.peakGatheredBytes());
                }
            }
            try (Module net = Lesson09.wholeModel(Lesson09.seed())) {
                if (method.equals(METHODS.get(0))) {
                    try (DataParallel dp = new DataParallel(net, c); Optimizer opt = Lesson09.sgd().apply(net.parameters())) {
                        dp.zeroGrad(opt);
                        Tensor loss = lossFn.forward(dp.forward(Tensor.constant(batch.x())), batch.y());
                        long peak = bytes(net.parameters(), false);       // after forward
                        dp.backward(loss);
                        dp.finish();
                        peak = Math.max(peak, bytes(net.parameters(), false));
                        opt.step();
                        return new Row(method, c.size(), bytes(net.parameters(), false), bytes(net.parameters(), true),
                                4 * opt.stateElements(), peak);
                    }
                }
                try (ShardedOptimizer zero = new ShardedOptimizer(net.parameters(), c, Lesson09.sgd())) {
                    List<Tensor> all = new ArrayList<>(net.parameters());
                    all.addAll(zero.inner().params());                   // this rank's slice, a tensor of its own
                    zero.zeroGrad();
                    Tensor loss = lossFn.forward(net.forward(Tensor.constant(batch.x())), batch.y());
                    long peak = bytes(all, false);
                    loss.backward();
                    peak = Math.max(peak, bytes(all, false));
                    zero.step();
                    return new Row(method, c.size(), bytes(all, false), bytes(all, true), 4 * zero.inner().stateElements(), peak);
                }
            }
        }
    }

    /** Bytes of the tensors' values (or gradients) that are alive. */
    static long bytes(List<Tensor> ts, boolean grads) {
        long n = 0;
        for (Tensor t : ts) {
            var a = grads ? t.grad() : t.data();
            if (a != null && !a.isClosed()) n += 4 * a.size();
        }
        return n;
    }

    /** The measurements as a table, bytes per rank. */
    public static Table table(List<Row> rows) {
        return Table.create("bytes per rank, measured after one step (the rank that holds most)",
                StringColumn.create("method", rows.stream().map(Row::method)),
                IntColumn.create("ranks", rows.stream().mapToInt(Row::ranks).toArray()),
                IntColumn.create("parameters", ints(rows, Row::params)),
                IntColumn.create("gradients", ints(rows, Row::grads)),
                IntColumn.create("optimizer state", ints(rows, Row::state)),
                IntColumn.create("kept between steps", ints(rows, Row::kept)),
                IntColumn.create("peak parameters in forward/backward", ints(rows, Row::peakParams)));
    }

    private static int[] ints(List<Row> rows, java.util.function.ToLongFunction<Row> f) {
        return rows.stream().mapToLong(f).mapToInt(Math::toIntExact).toArray();
    }

    /** Bytes kept between steps per rank, against the number of ranks, one bar per method. */
    public static CategoryChart chart(List<Row> rows) {
        CategoryChart c = new CategoryChartBuilder().width(820).height(360)
                .title("Memory one rank keeps between steps (measured)").xAxisTitle("number of ranks")
                .yAxisTitle("KiB: parameters + gradients + optimizer state").build();
        for (String m : METHODS) {
            List<Integer> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (Row r : rows) {
                if (!r.method().equals(m)) continue;
                x.add(r.ranks());
                y.add(r.kept() / 1024.0);
            }
            c.addSeries(m, x, y);
        }
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        return c;
    }

    /** What the table shows, in sentences computed from its numbers. */
    public static String summary(List<Row> rows) {
        int most = Lesson09.RANKS[Lesson09.RANKS.length - 1];
        Row dp = find(rows, 0, most), zero = find(rows, 1, most), fsdp = find(rows, 2, most), one = find(rows, 0, 1);
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "On %d ranks a rank keeps %.1f KiB with plain data"
                + " parallelism, %.1f KiB with ZeRO-1 and %.1f KiB with FSDP: %.1fx less than plain data parallelism.",
                most, kib(dp.kept()), kib(zero.kept()), kib(fsdp.kept()), (double) dp.kept() / fsdp.kept()));
        s.append(' ').append(trend(rows, 0)).append(' ').append(trend(rows, 1)).append(' ').append(trend(rows, 2));
        s.append(String.format(Locale.ROOT, " ZeRO-1 shrinks the optimizer state only (%d bytes instead of %d); its"
                + " parameters are %s those of plain data parallelism (%d and %d bytes), %s.", zero.state(), dp.state(),
                zero.params() > dp.params() ? "more than" : "the same as", zero.params(), dp.params(),
                zero.params() > dp.params() ? "because its slice is a tensor of its own beside the whole model" : "its slice lying in the model"));
        s.append(String.format(Locale.ROOT, " FSDP's peak of live parameters, %d bytes, is %.0f%% of the whole model's"
                + " %d: its shards, and one gathered unit at a time.", fsdp.peakParams(),
                100.0 * fsdp.peakParams() / one.params(), one.params()));
        return s.toString();
    }

    /** Whether method {@code m}'s kept bytes fell, rose or stayed as ranks were added, from the measurements. */
    private static String trend(List<Row> rows, int m) {
        long first = find(rows, m, Lesson09.RANKS[0]).kept();
        long last = find(rows, m, Lesson09.RANKS[Lesson09.RANKS.length - 1]).kept();
        String name = METHODS.get(m).replaceAll(" \\(\\d+\\)$", "");
        String how = last < first ? String.format(Locale.ROOT, "falls from %.1f to %.1f KiB", kib(first), kib(last))
                : last > first ? String.format(Locale.ROOT, "rises from %.1f to %.1f KiB", kib(first), kib(last))
                : String.format(Locale.ROOT, "stays at %.1f KiB", kib(first));
        return Character.toUpperCase(name.charAt(0)) + name.substring(1) + ": what a rank keeps " + how
                + " from 1 to " + Lesson09.RANKS[Lesson09.RANKS.length - 1] + " ranks.";
    }

    private static Row find(List<Row> rows, int method, int ranks) {
        return rows.stream().filter(r -> r.method().equals(METHODS.get(method)) && r.ranks() == ranks).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no measurement of " + METHODS.get(method) + " on " + ranks));
    }

    private static double kib(long bytes) {
        return bytes / 1024.0;
    }
}
