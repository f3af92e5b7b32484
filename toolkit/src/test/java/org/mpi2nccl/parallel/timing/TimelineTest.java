package org.mpi2nccl.parallel.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.XYChart;
import org.mpi2nccl.comm.ring.LocalRanks;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.parallel.timing.TimelineEvent.Kind;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.tensor.Device;

/**
 * A {@link Timeline} of a 2-rank CPU training (thread ranks) with several buckets and overlap: the gathered trace is
 * valid Trace Event Format JSON with, for every rank and recorded step, forward, backward, each bucket becoming ready
 * and its all-reduce, and the optimizer; steps past the timeline's limit are not kept.
 */
class TimelineTest {
    private static final SyntheticDataset DATA = new SyntheticDataset(192, new int[] {1, 6, 6}, 5, 11);
    private static final int RECORDED = 2;

    private record Got(String json, int buckets, long[] bucketBytes, TimelineTrace trace) {}

    @Test
    void aTwoRankStepIsAValidChromeTraceWithEveryRankAndBucket() {
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("mlp", DATA, 24, 3, 3, 0.1f, 0.9f);
        List<Got> got = LocalRanks.run(2, b -> {}, c -> {
            try (Module net = EquivalenceCheck.rankModel(s, Device.cpu(), c.rank());
                 DataParallel dp = new DataParallel(net, c, DataParallel.Options.defaults().bucketBytes(512))) {
                Timeline tl = Timeline.attach(dp, RECORDED);
                EquivalenceCheck.train(s, dp);                     // 3 steps, 2 recorded
                TimelineTrace trace = tl.gather(c);
                long[] bytes = dp.bucketElements().clone();
                for (int i = 0; i < bytes.length; i++) bytes[i] *= 4;
                return new Got(trace.toJson(), dp.bucketCount(), bytes, trace);
            }
        });
        int buckets = got.get(0).buckets();
        assertTrue(buckets >= 2, "at least 2 buckets: " + buckets);
        assertEquals(got.get(0).json(), got.get(1).json(), "every rank gathered the same trace");

        JsonObject root = JsonParser.parseString(got.get(0).json()).getAsJsonObject();
        assertTrue(root.has("traceEvents") && root.get("traceEvents").isJsonArray(), "a traceEvents array");
        JsonArray events = root.getAsJsonArray("traceEvents");
        Set<String> seen = new HashSet<>();                      // "rank/step/name"
        for (JsonElement el : events) {
            JsonObject e = el.getAsJsonObject();
            for (String key : List.of("name", "ph", "ts", "pid", "tid")) assertTrue(e.has(key), key + " missing in " + e);
            String ph = e.get("ph").getAsString();
            assertTrue(Set.of("X", "i", "M").contains(ph), "phase " + ph);
            assertTrue(e.get("ts").getAsDouble() >= 0, "ts after the ranks met: " + e);
            if (ph.equals("X")) assertTrue(e.has("dur") && e.get("dur").getAsDouble() >= 0, "X with dur >= 0: " + e);
            if (ph.equals("M")) continue;
            JsonObject args = e.getAsJsonObject("args");
            int step = args.get("step").getAsInt();
            assertTrue(step < RECORDED, "only the first " + RECORDED + " steps are kept: " + e);
            seen.add(e.get("pid").getAsInt() + "/" + step + "/" + e.get("name").getAsString());
            if (e.get("name").getAsString().startsWith("all-reduce")) {
                int b = args.get("bucket").getAsInt();
                assertEquals(got.get(0).bucketBytes()[b], args.get("bytes").getAsLong(), "bucket " + b + "'s bytes");
                assertEquals(TimelineTrace.COMM_TID, e.get("tid").getAsInt());
            }
        }
        for (int rank = 0; rank < 2; rank++) {
            for (int step = 0; step < RECORDED; step++) {
                String at = rank + "/" + step + "/";
                for (Kind k : List.of(Kind.FORWARD, Kind.BACKWARD, Kind.WAIT, Kind.OPTIMIZER)) {
                    assertTrue(seen.contains(at + k.label()), "rank " + rank + " step " + step + ": " + k.label());
                }
                for (int b = 0; b < buckets; b++) {
                    assertTrue(seen.contains(at + "bucket ready " + b), "rank " + rank + " step " + step + ": bucket " + b + " ready");
                    assertTrue(seen.contains(at + "all-reduce " + b), "rank " + rank + " step " + step + ": all-reduce of bucket " + b);
                }
            }
        }

        TimelineTrace trace = got.get(0).trace();
        assertEquals(2 * RECORDED * buckets, trace.allReduces());
        for (int r = 0; r < 2; r++) {
            long lastEnd = 0;
            List<TimelineEvent> backward = new java.util.ArrayList<>();
            for (TimelineEvent e : trace.events(r)) {
                if (e.kind() == Kind.BACKWARD) backward.add(e);
                if (TimelineTrace.tid(e) != TimelineTrace.STEP_TID || e.kind() == Kind.BUCKET_READY) continue;
                assertTrue(e.startNanos() >= lastEnd, "the step's phases follow one another: " + e);
                lastEnd = e.endNanos();
            }
            for (TimelineEvent e : trace.events(r)) {
                if (e.kind() != Kind.BUCKET_READY) continue;
                TimelineEvent b = backward.get(e.step());
                assertTrue(b.startNanos() <= e.startNanos() && e.startNanos() <= b.endNanos(),
                        "with overlap a bucket is ready during its step's backward: " + e + ", " + b);
            }
        }
        XYChart chart = trace.chart("test");
        assertFalse(chart.getSeriesMap().isEmpty(), "the chart draws the events");

        TimelineTrace back = TimelineTrace.fromJson(got.get(0).json());
        assertEquals(trace.events(), back.events(), "a written trace reads back to the same events");
        IllegalArgumentException other = assertThrows(IllegalArgumentException.class, () -> TimelineTrace.fromJson(
                "{\"traceEvents\": [{\"name\": \"x\", \"cat\": \"gpu_kernel\", \"ph\": \"X\", \"ts\": 1, \"dur\": 2, \"pid\": 0, \"tid\": 1, \"args\": {}}]}"));
        assertTrue(other.getMessage().contains("gpu_kernel"), other.getMessage());
    }

    @Test
    void withoutOverlapTheAllReducesRunAfterBackwardOnTheStepsThread() {
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup("mlp", DATA, 24, 1, 3, 0.1f, 0.9f);
        List<TimelineTrace> got = LocalRanks.run(2, b -> {}, c -> {
            try (Module net = EquivalenceCheck.rankModel(s, Device.cpu(), c.rank());
                 DataParallel dp = new DataParallel(net, c, DataParallel.Options.defaults().bucketBytes(512).overlap(false))) {
                Timeline tl = Timeline.attach(dp, 1);
                EquivalenceCheck.train(s, dp);
                return tl.gather(c);
            }
        });
        TimelineTrace t = got.get(0);
        assertTrue(t.allReduces() >= 4, "2 ranks, at least 2 buckets each: " + t.allReduces());
        assertEquals(0, t.allReducesDuringBackward(), "without overlap no all-reduce starts before backward ends");
        for (TimelineEvent e : t.events()) {
            if (e.kind() == Kind.ALL_REDUCE) assertTrue(e.onStepThread(), "without overlap, on the step's thread: " + e);
        }
    }
}
