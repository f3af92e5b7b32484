package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.ring.LocalRanks;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * Lesson 09's check of the student's sharded unit. On 1, 2, 3 and 4 thread ranks it builds the model's two units with
 * the student's class, trains {@link #STEPS} steps and compares every rank's shards with one rank training the whole
 * batch with the plain optimizer. The first step is watched place by place, in the order the code runs, and the first
 * wrong place is named: what the wrapped optimizer was given (the shard's length: padded or not), the shard's values,
 * a layer left alive after the constructor, each unit's output, full parameters still alive after a forward or a
 * backward (measured: the bytes of the layers made by the unit's factory that are not closed), the gradient handed
 * back, and the shard's gradient (averaged, summed, or never reduce-scattered). The expected values are never printed.
 *
 * <p>Each run has thread communicators of its own, and the student's code a communicator split from them
 * ({@link CheckRanks#own}); the ranks agree after every phase ({@link CheckRanks#agree}), so a wrong answer never
 * leaves a rank waiting, nor the next run broken.
 */
public final class Lesson09Check {
    static final int STEPS = 4;
    /** Relative difference below which two float results are the same computation in another order. */
    static final double SAME = 1e-4;
    public static final String EXERCISE = "fsdp-unit";

    private Lesson09Check() {
    }

    /** The exercise on 1 to 4 thread ranks. */
    public static Check check(Lesson09.Factory factory) {
        List<String> runs = new ArrayList<>();
        for (int n : Lesson09.RANKS) {
            List<String> got = LocalRanks.run(n, b -> b.timeout(Lesson09.TIMEOUT), c -> run(c, factory));
            for (int r = 0; r < n; r++) {
                if (got.get(r) != null) {
                    return Check.wrong("your sharded unit is not plain training yet", "on " + n + " thread rank"
                            + (n == 1 ? "" : "s") + ", rank " + r + ": " + got.get(r));
                }
            }
            runs.add(Integer.toString(n));
        }
        return Check.right("your sharded units train like one rank with the whole batch", "on " + String.join(", ", runs)
                + " thread ranks: each rank kept a padded slice of every unit, every gathered layer was freed after its"
                + " forward and its backward, and the slices' gradients were averaged by the reduce-scatter.");
    }

    /** The full parameters the layers made by one unit's factory hold, counted from those not closed. */
    static final class LiveLayers {
        private final List<Module> made = new ArrayList<>();
        private int calls;

        Supplier<Module> counting(Supplier<Module> make) {
            return () -> {
                Module m = make.get();
                synchronized (this) {
                    made.add(m);
                    calls++;
                }
                return m;
            };
        }

        synchronized long liveBytes() {
            long bytes = 0;
            for (Module m : made) for (Tensor p : m.parameters()) if (!p.data().isClosed()) bytes += 4 * p.size();
            return bytes;
        }

        synchronized int calls() {
            return calls;
        }

        synchronized void closeAll() {
            for (Module m : made) m.close();
        }
    }

    /** One run on {@code comm}'s ranks: null when right, else the first wrong place. Collective. */
    static String run(Communicator comm, Lesson09.Factory factory) {
        int units = 2;
        Lesson09Reference ref = new Lesson09Reference(comm.rank(), comm.size(), Lesson09.seed(), STEPS);
        LiveLayers[] meters = {new LiveLayers(), new LiveLayers()};
        List<List<Tensor>> given = new ArrayList<>();
        List<Lesson09.Unit> made = new ArrayList<>();
        Communicator own = CheckRanks.own(comm);
        try {
            String wrong = CheckRanks.agree(comm, CheckRanks.attempt(() -> {
                List<Supplier<Module>> makers = Lesson09.units();
                for (int u = 0; u < units; u++) {
                    int unit = u;
                    Function<List<Tensor>, Optimizer> capture = ps -> {
                        given.add(List.copyOf(ps));
                        return Lesson09.sgd().apply(ps);
                    };
                    Lesson09.Unit x = factory.wrap(meters[u].counting(makers.get(u)), own, capture);
                    if (x == null) return "the factory returned null: return your unit (new MyFsdpUnit(...)).";
                    made.add(x);
                    String why = constructed(unit, given, meters[u], ref);
                    if (why != null) return why;
                }
                return null;
            }));
            if (wrong != null) return wrong;
            wrong = CheckRanks.agree(comm, CheckRanks.attempt(() -> firstStep(made, given, meters, ref)));
            if (wrong != null) return wrong;
            return CheckRanks.agree(comm, CheckRanks.attempt(() -> {
                int at = 0;
                for (Batch b : Lesson07.loader(comm.rank(), comm.size(), Device.cpu()).epoch(0)) {
                    try (ArrayScope scope = ArrayScope.open(); b) {
                        int i = at++;
                        if (i > 0 && i < STEPS) Lesson09.step(made, b);      // batch 0 was the watched step's
                    }
                }
                for (int u = 0; u < units; u++) {
                    double d = Lesson09Reference.difference(given.get(u).get(0).data().toArray(), ref.finalShard(u));
                    if (!(d < SAME)) {
                        return String.format(Locale.ROOT, "the first step was right, but after %d steps unit %d's shard"
                                + " differs from one rank's training by %s (relative). Does step() call the wrapped"
                                + " optimizer, and does backward replace (not add to) the shard's gradient each step?",
                                STEPS, u, Lesson03Diagnosis.fmt(d));
                    }
                }
                return null;
            }));
        } finally {
            own.close();
            for (LiveLayers m : meters) m.closeAll();
            for (List<Tensor> ts : given) for (Tensor t : ts) t.close();
        }
    }

    /** After unit {@code u}'s constructor: the optimizer's tensors, the shard's values, no layer left alive. */
    private static String constructed(int u, List<List<Tensor>> given, LiveLayers meter, Lesson09Reference ref) {
        int n = ref.count(u), size = ref.size(), shard = Lesson09.shardLength(n, size);
        if (given.size() != u + 1) {
            return "unit " + u + ": the wrapped optimizer was " + (given.size() <= u ? "never made" : "made twice")
                    + ": call makeOptimizer.apply(List.of(shard)) once in the constructor, over your shard.";
        }
        List<Tensor> ts = given.get(u);
        long length = ts.stream().mapToLong(Tensor::size).sum();
        String where = String.format(Locale.ROOT, "unit %d (%d parameters) on %d ranks: ", u, n, size);
        if (ts.size() != 1 || length != shard) {
            if (length == n && size > 1) {
                return where + "the wrapped optimizer was given the whole unit. FSDP keeps this rank's slice only: make"
                        + " it over one tensor of ceil(n / size) = " + shard + " values.";
            }
            if (n % size != 0 && length == n / size) {
                return where + "the shard was not padded: slices of n / size = " + n / size + " values leave the last "
                        + (n - n / size * size) + " parameters to no rank. Use ceil(n / size) = " + shard + " values a"
                        + " rank and pad the flat parameters with zeros to size x " + shard + ".";
            }
            return where + "the wrapped optimizer was given " + ts.size() + " tensor(s) of " + length + " values in all;"
                    + " give it one tensor, your shard of ceil(n / size) = " + shard + " values.";
        }
        if (!(Lesson09Reference.difference(ts.get(0).data().toArray(), ref.initialShard(u)) < SAME)) {
            return where + "the shard does not hold this rank's slice of the unit's initial parameters: rank r keeps"
                    + " values [r x " + shard + ", (r + 1) x " + shard + ") of the flat parameters padded with zeros.";
        }
        long live = meter.liveBytes();
        if (live > 0) {
            return where + live + " bytes of the layer your constructor built are still alive: close it (try-with-resources)"
                    + " once your shard holds its values. Between steps a rank keeps its shard only.";
        }
        return null;
    }

    /** The first step, watched unit by unit: outputs, freeing, the gradient handed back and the shard's gradient. */
    private static String firstStep(List<Lesson09.Unit> units, List<List<Tensor>> given, LiveLayers[] meters,
                                    Lesson09Reference ref) {
        try (ArrayScope scope = ArrayScope.open(); Batch b = ref.firstBatch()) {
            String first = null;
            Tensor h = Tensor.constant(b.x());
            for (int u = 0; u < units.size(); u++) {
                int before = meters[u].calls();
                h = units.get(u).forward(h);
                String where = String.format(Locale.ROOT, "unit %d's forward: ", u);
                long live = meters[u].liveBytes();
                if (first == null && live > 0) {
                    first = where + "the parameters were not freed after forward: " + live + " bytes of the unit's full"
                            + " parameters were still alive when it returned. Close the gathered layer before forward"
                            + " returns; backward gathers the parameters again.";
                }
                if (first == null && meters[u].calls() == before) {
                    first = where + "no layer was made from makeLayer: gather the shards into a fresh layer for every"
                            + " forward (makeLayer.get(), then load the gathered values).";
                }
                double d = h == null ? Double.NaN : Lesson09Reference.difference(h.data().toArray(), ref.output(u));
                if (first == null && !(d < SAME)) {
                    first = where + "the output differs from the unit's own by " + Lesson03Diagnosis.fmt(d) + " (relative)."
                            + " All-gather every rank's shard, drop the padding (keep the first n values), load them"
                            + " into the layer, then call its forward.";
                }
                if (first != null) return first;
            }
            Tensor logits = Tensor.leaf(h.data(), true);
            new SoftmaxCrossEntropyLoss().forward(logits, b.y()).backward();
            NDArray g = logits.grad();
            for (int u = units.size() - 1; u >= 0; u--) {
                g = units.get(u).backward(g);
                String why = afterBackward(u, g, given.get(u).get(0), meters[u], ref);
                if (why != null) return why;
            }
            for (Lesson09.Unit u : units) u.step();
            return null;
        }
    }

    private static String afterBackward(int u, NDArray g, Tensor shard, LiveLayers meter, Lesson09Reference ref) {
        String where = String.format(Locale.ROOT, "unit %d's backward: ", u);
        long live = meter.liveBytes();
        if (live > 0) {
            return where + "the parameters were not freed after backward: " + live + " bytes of the unit's full"
                    + " parameters were still alive when it returned. Close the layer once its gradients are"
                    + " reduce-scattered.";
        }
        if (u > 0) {
            double d = g == null ? Double.NaN : Lesson09Reference.difference(g.toArray(), ref.inputGradient(u));
            if (!(d < SAME)) {
                return where + (g == null ? "it returned null." : "the gradient it returned differs from the unit"
                        + " input's by " + Lesson03Diagnosis.fmt(d) + " (relative).") + " Recompute the unit's forward on"
                        + " a leaf that requires a gradient (Tensor.leaf(input.data(), true)), call backward(outGrad)"
                        + " on its output, and return the leaf's grad().";
            }
        }
        NDArray sg = shard.grad();
        float[] got = sg == null || sg.isClosed() ? null : sg.toArray();
        if (got != null && Lesson09Reference.difference(got, ref.gradientShard(u, "avg")) < SAME) return null;
        if (got == null || Arrays.equals(got, new float[got.length])) {
            return where + "the shard has no gradient: reduce-scatter the layer's padded gradients into the shard's"
                    + " gradient (shard.grad().assign(...)).";
        }
        if (Lesson09Reference.difference(got, ref.gradientShard(u, "sum")) < SAME) {
            return where + "the gradient was summed, not averaged, over the ranks: reduce-scatter with Reduction.AVG.";
        }
        if (Lesson09Reference.difference(got, ref.gradientShard(u, "local")) < SAME) {
            return where + "the gradient was not reduce-scattered: the shard holds this rank's own gradient only."
                    + " Reduce-scatter (average) the layer's padded gradients over the ranks into the shard's gradient.";
        }
        return where + "the shard's gradient is not this rank's slice of the averaged gradient: pad the layer's gradients"
                + " with zeros to size x shard and reduce-scatter them (Reduction.AVG) into the shard's gradient.";
    }
}
