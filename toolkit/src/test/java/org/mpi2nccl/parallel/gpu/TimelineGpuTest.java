package org.mpi2nccl.parallel.gpu;

import org.mpi2nccl.bench.gpu.EquivalenceRank;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.comm.ring.LocalRanks;
import org.mpi2nccl.cuda.GpuTests;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.parallel.timing.Timeline;
import org.mpi2nccl.parallel.timing.TimelineEvent;
import org.mpi2nccl.parallel.timing.TimelineEvent.Kind;
import org.mpi2nccl.parallel.timing.TimelineTrace;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.tensor.Device;

/**
 * A {@link Timeline} of {@link GpuDataParallel}'s steps on GPUs, timed by CUDA events: one GPU alone (every phase, in
 * order; CUDA graphs paused for the recorded steps and replayed after them), one GPU beside a CPU rank through the
 * hand-written ring (every event kind, the all-reduces host-timed on the same axis), and two GPUs over NCCL (each
 * bucket's all-reduce timed on NCCL's stream).
 */
@Tag("gpu")
class TimelineGpuTest {
    private static final SyntheticDataset DATA = new SyntheticDataset(192, new int[] {1, 6, 6}, 5, 11);
    private static final int RECORDED = 2;

    @TempDir
    Path dir;

    /** One rank on cuda:0, CUDA graphs asked for: the recorded steps have every phase, in order; the rest replay. */
    @Test
    void oneGpuRecordsEveryPhaseInOrderAndGraphsResumeAfter() {
        GpuTests.requireGpu();
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("cnn", DATA, 24, 8, 3, 0.1f, 0.9f);
        Object[] got = LocalRanks.run(1, b -> {}, c -> {
            try (Module net = EquivalenceCheck.rankModel(s, Device.cuda(0), 0);
                 GpuDataParallel dp = new GpuDataParallel(net, c, DataParallel.Options.defaults(),
                         GpuOptions.defaults().cudaGraphs(true))) {
                Timeline tl = Timeline.attach(dp, RECORDED);
                assertTrue(tl.onGpu(), "a GPU rank's timeline reads CUDA events");
                EquivalenceCheck.train(s, dp);
                return new Object[] {tl.gather(c), dp.graphReplays(), dp.times().steps()};
            }
        }).get(0);
        TimelineTrace trace = (TimelineTrace) got[0];
        long replays = (Long) got[1];
        System.out.println("one GPU: " + trace.events(0).size() + " events; " + replays + " of 8 steps replayed from graphs");
        assertEquals(8L, got[2], "the timer timed every step");
        assertTrue(replays > 0 && replays <= 8 - RECORDED, "graphs replayed after the recorded steps: " + replays);
        for (int step = 0; step < RECORDED; step++) {
            TimelineEvent f = one(trace, 0, step, Kind.FORWARD), b = one(trace, 0, step, Kind.BACKWARD),
                    w = one(trace, 0, step, Kind.WAIT), o = one(trace, 0, step, Kind.OPTIMIZER);
            assertTrue(f.startNanos() >= 0, "after time zero: " + f);
            assertTrue(f.durationNanos() > 0 && b.durationNanos() > 0 && o.durationNanos() > 0,
                    "the GPU spent time in forward, backward and the optimizer: " + trace.events(0));
            assertEquals(f.endNanos(), b.startNanos(), "backward starts where forward ends (one event)");
            assertTrue(b.endNanos() <= w.endNanos() && w.endNanos() <= o.endNanos(), "phases in order: " + trace.events(0));
        }
        assertTrue(trace.events(0).stream().allMatch(e -> e.step() < RECORDED), "only the first " + RECORDED + " steps");
    }

    /**
     * Rank 0 on cuda:0, rank 1 on the CPU, gradients through the hand-written ring (the GPU's buckets staged through
     * host memory), overlap on and small buckets: the GPU rank's recorded steps hold every event kind.
     */
    @Test
    void aGpuRankBesideACpuRankRecordsEveryKind() {
        GpuTests.requireGpu();
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("cnn", DATA, 24, 3, 3, 0.1f, 0.9f);
        List<Object[]> got = LocalRanks.run(2, b -> {}, c -> {
            Device d = c.rank() == 0 ? Device.cuda(0) : Device.cpu();
            try (Module net = EquivalenceCheck.rankModel(s, d, c.rank());
                 GpuDataParallel dp = new GpuDataParallel(net, c, DataParallel.Options.defaults().bucketBytes(512),
                         GpuOptions.defaults())) {
                Timeline tl = Timeline.attach(dp, RECORDED);
                EquivalenceCheck.train(s, dp);
                return new Object[] {tl.gather(c), dp.bucketCount()};
            }
        });
        TimelineTrace trace = (TimelineTrace) got.get(0)[0];
        int buckets = (Integer) got.get(0)[1];
        assertTrue(buckets >= 2, "several buckets: " + buckets);
        for (int rank = 0; rank < 2; rank++) {
            for (int step = 0; step < RECORDED; step++) {
                Set<Kind> kinds = EnumSet.noneOf(Kind.class);
                Set<Integer> reduced = new HashSet<>();
                for (TimelineEvent e : trace.events(rank)) {
                    if (e.step() != step) continue;
                    kinds.add(e.kind());
                    assertTrue(e.durationNanos() >= 0 && e.startNanos() >= 0, "rank " + rank + ": " + e);
                    if (e.kind() == Kind.ALL_REDUCE) reduced.add(e.bucket());
                }
                assertEquals(EnumSet.allOf(Kind.class), kinds, "rank " + rank + " step " + step + " has every event kind");
                assertEquals(buckets, reduced.size(), "rank " + rank + " step " + step + ": one all-reduce per bucket");
            }
        }
        TimelineEvent backward = one(trace, 0, 0, Kind.BACKWARD), optimizer = one(trace, 0, 0, Kind.OPTIMIZER);
        for (TimelineEvent e : trace.events(0)) {
            if (e.step() == 0 && e.kind() == Kind.ALL_REDUCE) {
                assertTrue(e.endNanos() <= optimizer.startNanos() + 1_000_000, "host-timed all-reduces on the GPU's axis: " + e
                        + " ends before the optimizer " + optimizer + " (1 ms slack)");
                assertTrue(e.startNanos() >= backward.startNanos() - 1_000_000, "and starts after backward began: " + e);
            }
        }
    }

    /**
     * Two GPUs over NCCL (two MPJ processes): every rank's trace has each bucket's all-reduce, timed on NCCL's stream.
     * The buckets expected are those {@link GpuDataParallel#plan} makes for the job's model and options.
     */
    @Test
    void twoGpusOverNcclRecordEachBucketsAllReduce() throws Exception {
        TwoGpuJobs.requireTwoGpus();
        Path trace = dir.resolve("trace.json");
        List<String> args = timelineJob("nccl", "cuda", dir, trace);
        int buckets = plannedBuckets(args);
        assertTrue(buckets >= 2, "the job's options plan several buckets: " + buckets);
        List<String> lines = TwoGpuJobs.runEquivalenceRanks(args);
        assertTrue(lines.stream().anyMatch(l -> l.contains("the steps the timeline records run without CUDA graphs")),
                "the pause of the graphs is said: " + lines);
        checkEveryBucket(trace, 2, buckets);
    }

    /**
     * The arguments of {@link EquivalenceRank} for a recorded 2-rank job: the lesson's CNN on the synthetic set, 6 steps
     * of which {@link #RECORDED} are recorded, CUDA graphs asked for, and buckets of 512 bytes. The whole CNN is 900
     * bytes (225 floats), so a bucket of 4096 bytes or more would hold all of it: one bucket, nothing to overlap.
     */
    static List<String> timelineJob(String route, String device, Path out, Path trace) {
        return new ArrayList<>(List.of("route=" + route, "device=" + device, "model=cnn", "examples=192", "batch=24",
                "steps=6", "seed=3", "bucket-bytes=512", "cuda-graphs=true", "out=" + out, "timeline=" + trace,
                "timeline-steps=" + RECORDED));
    }

    /** How many buckets {@link GpuDataParallel#plan} makes for the model and bucket options of {@code args}. */
    static int plannedBuckets(List<String> args) {
        EquivalenceRank.Args a = EquivalenceRank.parse(args.toArray(new String[0]));
        EquivalenceCheck.Setup s = a.setup();
        try (Module net = EquivalenceCheck.model(s.model(), s.data(), Device.cpu(), s.seed())) {
            return GpuDataParallel.plan(net.parameters(), a.dataParallel().bucketBytes(), a.gpu().lastBucketBytes()).size();
        }
    }

    /**
     * The Chrome trace at {@code file}: for every rank and recorded step, each phase once, and for each of
     * {@code buckets} buckets its becoming ready and its all-reduce exactly once (none beyond), each all-reduce taking time.
     */
    static void checkEveryBucket(Path file, int ranks, int buckets) throws Exception {
        Map<String, Integer> seen = new TreeMap<>();            // "rank/step/name" -> how many times
        for (JsonElement el : JsonParser.parseString(Files.readString(file)).getAsJsonObject().getAsJsonArray("traceEvents")) {
            JsonObject e = el.getAsJsonObject();
            if (e.get("ph").getAsString().equals("M")) continue;
            JsonObject a = e.getAsJsonObject("args");
            String name = e.get("name").getAsString();
            seen.merge(e.get("pid").getAsInt() + "/" + a.get("step").getAsInt() + "/" + name, 1, Integer::sum);
            if (name.startsWith("all-reduce")) assertTrue(e.get("dur").getAsDouble() > 0, "time spent in it: " + e);
        }
        Map<String, Integer> expected = new TreeMap<>();
        for (int rank = 0; rank < ranks; rank++) {
            for (int step = 0; step < RECORDED; step++) {
                for (String k : List.of("forward", "backward", "wait for gradients", "optimizer")) expected.put(rank + "/" + step + "/" + k, 1);
                for (int b = 0; b < buckets; b++) {
                    expected.put(rank + "/" + step + "/all-reduce " + b, 1);
                    expected.put(rank + "/" + step + "/bucket ready " + b, 1);
                }
            }
        }
        assertEquals(expected, seen, "each phase once, and each of " + buckets + " buckets once, per rank and recorded step");
    }

    private static TimelineEvent one(TimelineTrace t, int rank, int step, Kind kind) {
        return t.events(rank).stream().filter(e -> e.step() == step && e.kind() == kind).findFirst()
                .orElseThrow(() -> new AssertionError("rank " + rank + " step " + step + ": no " + kind.label() + " in " + t.events(rank)));
    }
}
