package org.mpi2nccl.parallel.timing;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.XYChart;
import org.mpi2nccl.parallel.timing.TimelineEvent.Kind;

/**
 * Every rank's {@link Timeline} events together ({@link Timeline#gather}): written as a Chrome trace, drawn as a chart
 * ({@link TimelineChart}), and counted (how many all-reduces began before their step's backward ended).
 *
 * <p>The trace is the Trace Event Format that chrome://tracing and ui.perfetto.dev open:
 * {@code {"traceEvents": [{"name", "ph", "ts", "dur", "pid", "tid", "args"}, ...]}}, times in microseconds. Each rank
 * is a process ({@code pid} = rank); its step's thread is {@code tid} {@value #STEP_TID} and its all-reduces are
 * {@code tid} {@value #COMM_TID}, even when they ran on the step's thread (without overlap: {@code args.thread} says
 * so), so that the two rows show what overlaps what. Phases and all-reduces are complete events ({@code "ph": "X"}
 * with a {@code dur}); a bucket becoming ready is an instant ({@code "ph": "i"}).
 */
public final class TimelineTrace {
    /** Trace thread ids: the step's thread and the all-reduces. */
    public static final int STEP_TID = 1, COMM_TID = 2;

    private final List<List<TimelineEvent>> ranks;

    public TimelineTrace(List<List<TimelineEvent>> ranks) {
        this.ranks = List.copyOf(ranks.stream().map(List::copyOf).toList());
    }

    public int ranks() {
        return ranks.size();
    }

    /** Rank {@code r}'s events, in the order it recorded them. */
    public List<TimelineEvent> events(int r) {
        return ranks.get(r);
    }

    /** Every rank's events, rank by rank. */
    public List<TimelineEvent> events() {
        List<TimelineEvent> all = new ArrayList<>();
        ranks.forEach(all::addAll);
        return all;
    }

    /** The trace's thread id for an event. */
    static int tid(TimelineEvent e) {
        return e.kind() == Kind.ALL_REDUCE ? COMM_TID : STEP_TID;
    }

    /** The Trace Event Format JSON (Gson), with names for every process and thread. */
    public String toJson() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (int r = 0; r < ranks.size(); r++) {
            out.add(meta("process_name", r, STEP_TID, "rank " + r));
            out.add(meta("thread_name", r, STEP_TID, "step (forward, backward, optimizer)"));
            out.add(meta("thread_name", r, COMM_TID, "all-reduce"));
            for (TimelineEvent e : ranks.get(r)) out.add(event(e));
        }
        Map<String, Object> trace = new LinkedHashMap<>();
        trace.put("traceEvents", out);
        trace.put("displayTimeUnit", "ms");
        return GSON.toJson(trace);
    }

    private static final Gson GSON = new GsonBuilder().create();

    private static Map<String, Object> event(TimelineEvent e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", e.name());
        m.put("cat", e.kind().label());
        boolean instant = e.kind() == Kind.BUCKET_READY;
        m.put("ph", instant ? "i" : "X");
        m.put("ts", e.startNanos() / 1e3);
        if (instant) m.put("s", "t");
        else m.put("dur", e.durationNanos() / 1e3);
        m.put("pid", e.rank());
        m.put("tid", tid(e));
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("step", e.step());
        if (e.bucket() >= 0) args.put("bucket", e.bucket());
        if (e.kind() == Kind.ALL_REDUCE) {
            args.put("bytes", e.bytes());
            args.put("thread", e.onStepThread() ? "the step's thread" : "the all-reduce thread");
        }
        m.put("args", args);
        return m;
    }

    private static Map<String, Object> meta(String what, int pid, int tid, String name) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", what);
        m.put("ph", "M");
        m.put("ts", 0);
        m.put("pid", pid);
        m.put("tid", tid);
        m.put("args", Map.of("name", name));
        return m;
    }

    /**
     * A trace written by {@link #toJson()} (a recorded GPU run, say), read back: every rank's events. Kinds are known by
     * their names; events of other tools' traces are refused with the name that was not understood.
     */
    public static TimelineTrace fromJson(String json) {
        JsonObject root = JsonParser.parseString(json).getAsJsonObject();
        if (!root.has("traceEvents")) throw new IllegalArgumentException("not a Chrome trace: no traceEvents array");
        Map<String, Kind> byLabel = new LinkedHashMap<>();
        for (Kind k : Kind.values()) byLabel.put(k.label(), k);
        List<List<TimelineEvent>> ranks = new ArrayList<>();
        for (JsonElement el : root.getAsJsonArray("traceEvents")) {
            JsonObject e = el.getAsJsonObject();
            if (e.get("ph").getAsString().equals("M")) continue;
            Kind kind = byLabel.get(e.get("cat").getAsString());
            if (kind == null) throw new IllegalArgumentException("not a timeline of this toolkit: event kind '" + e.get("cat") + "'");
            int rank = e.get("pid").getAsInt();
            while (ranks.size() <= rank) ranks.add(new ArrayList<>());
            JsonObject a = e.getAsJsonObject("args");
            long start = Math.round(e.get("ts").getAsDouble() * 1e3);
            long end = e.has("dur") ? start + Math.round(e.get("dur").getAsDouble() * 1e3) : start;
            boolean stepThread = !a.has("thread") || a.get("thread").getAsString().equals("the step's thread");
            ranks.get(rank).add(new TimelineEvent(rank, kind, a.get("step").getAsInt(), a.has("bucket") ? a.get("bucket").getAsInt() : -1,
                    a.has("bytes") ? a.get("bytes").getAsLong() : 0, start, end, stepThread));
        }
        return new TimelineTrace(ranks);
    }

    /** Writes {@link #toJson()} to {@code file} (open it in ui.perfetto.dev or chrome://tracing). */
    public Path write(Path file) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            return Files.writeString(file, toJson());
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the trace to " + file, e);
        }
    }

    /** The timeline as a chart: one row per rank, time in ms. */
    public XYChart chart(String title) {
        return TimelineChart.of(this, title, Double.NaN);
    }

    /**
     * The same chart with its time axis from 0 to {@code endMs}: two timelines drawn to one scale ({@link #end}) can
     * be compared by eye, bar for bar.
     */
    public XYChart chart(String title, double endMs) {
        return TimelineChart.of(this, title, endMs);
    }

    /** The latest end of any event of these timelines, in ms: the common scale to draw them to. */
    public static double end(TimelineTrace... traces) {
        double end = 0;
        for (TimelineTrace t : traces) for (TimelineEvent e : t.events()) end = Math.max(end, e.endNanos() / 1e6);
        return end;
    }

    /** All-reduces over every rank and step. */
    public int allReduces() {
        return (int) events().stream().filter(e -> e.kind() == Kind.ALL_REDUCE).count();
    }

    /** All-reduces, over every rank and step, that began before their own rank's backward of that step ended. */
    public int allReducesDuringBackward() {
        int n = 0;
        for (List<TimelineEvent> rank : ranks) {
            for (TimelineEvent e : rank) {
                if (e.kind() != Kind.ALL_REDUCE) continue;
                for (TimelineEvent b : rank) {
                    if (b.kind() == Kind.BACKWARD && b.step() == e.step() && e.startNanos() < b.endNanos()) n++;
                }
            }
        }
        return n;
    }

    /** Nanoseconds, summed over every rank and step, of the wait between the end of backward and averaged gradients. */
    public long waitNanos() {
        return events().stream().filter(e -> e.kind() == Kind.WAIT).mapToLong(TimelineEvent::durationNanos).sum();
    }

    /** Nanoseconds, summed over every rank and step, from a step's start to its optimizer's end. */
    public long stepNanos() {
        long n = 0;
        for (List<TimelineEvent> rank : ranks) {
            Map<Integer, long[]> span = new LinkedHashMap<>();
            for (TimelineEvent e : rank) {
                long[] s = span.computeIfAbsent(e.step(), k -> new long[] {Long.MAX_VALUE, Long.MIN_VALUE});
                s[0] = Math.min(s[0], e.startNanos());
                s[1] = Math.max(s[1], e.endNanos());
            }
            for (long[] s : span.values()) n += s[1] - s[0];
        }
        return n;
    }
}
