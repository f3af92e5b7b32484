package org.mpi2nccl.comm;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import org.knowm.xchart.HeatMapChart;
import org.knowm.xchart.HeatMapChartBuilder;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * Every message a ring collective sent or received, with the step, segment and chunk it carried and when:
 * the material for drawing "who sends which chunk at each step". Attach one to a
 * {@link RingCommunicator} (one per rank); merge the ranks' traces with {@link #merge}.
 *
 * <p>Times are nanoseconds since the collective started on the recording rank (ranks in different
 * processes have different clocks: compare times within a rank, steps across ranks).
 */
public final class RingTrace {

    /**
     * One message.
     *
     * @param phase     "reduce-scatter", "all-gather", "reduce", "broadcast", "gather" (naive), ...
     * @param step      step of the phase, from 0
     * @param segment   which segment of the buffer the message carries (for the ring: 0..size-1)
     * @param direction "send" or "recv"
     * @param startNs   when the transfer was posted
     * @param endNs     when it was seen complete
     */
    public record Event(int rank, String collective, long seq, String phase, int step, int segment, int chunk,
                        String direction, int peer, long bytes, long startNs, long endNs) {
    }

    private final List<Event> events = new ArrayList<>();
    private long origin = System.nanoTime();
    private String collective = "";
    private long seq;

    /** Marks the start of a collective: event times count from here. */
    synchronized void begin(CollectiveCall call) {
        origin = System.nanoTime();
        collective = call.collective().label();
        seq = call.seq();
    }

    synchronized void record(int rank, String phase, int step, int segment, int chunk, String direction, int peer,
                             long bytes, long startNanos, long endNanos) {
        events.add(new Event(rank, collective, seq, phase, step, segment, chunk, direction, peer, bytes,
                startNanos - origin, endNanos - origin));
    }

    /** Time base of the current collective (for callers that record start times). */
    long now() {
        return System.nanoTime();
    }

    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    public synchronized void clear() {
        events.clear();
    }

    /** A trace holding {@code events} (e.g. received from other ranks: see {@link TraceExchange}). */
    public static RingTrace of(Collection<Event> events) {
        RingTrace t = new RingTrace();
        t.events.addAll(events);
        return t;
    }

    /** The sequence number of the latest collective in the trace (-1 when empty): the one to draw. */
    public synchronized long lastSeq() {
        return events.stream().mapToLong(Event::seq).max().orElse(-1);
    }

    /** The events of several ranks' traces in one trace, ordered by collective, rank, phase order and step. */
    public static RingTrace merge(Collection<RingTrace> traces) {
        RingTrace all = new RingTrace();
        for (RingTrace t : traces) {
            all.events.addAll(t.events());
        }
        all.events.sort(Comparator.comparingLong(Event::seq).thenComparingInt(Event::rank)
                .thenComparingLong(Event::startNs));
        return all;
    }

    /** One row per event. */
    public synchronized Table table() {
        Table t = Table.create("ring trace");
        IntColumn rank = IntColumn.create("rank");
        StringColumn coll = StringColumn.create("collective");
        LongColumn seqs = LongColumn.create("seq");
        StringColumn phase = StringColumn.create("phase");
        IntColumn step = IntColumn.create("step");
        IntColumn segment = IntColumn.create("segment");
        IntColumn chunk = IntColumn.create("chunk");
        StringColumn dir = StringColumn.create("direction");
        IntColumn peer = IntColumn.create("peer");
        LongColumn bytes = LongColumn.create("bytes");
        LongColumn start = LongColumn.create("start_us");
        LongColumn end = LongColumn.create("end_us");
        for (Event e : events) {
            rank.append(e.rank());
            coll.append(e.collective());
            seqs.append(e.seq());
            phase.append(e.phase());
            step.append(e.step());
            segment.append(e.segment());
            chunk.append(e.chunk());
            dir.append(e.direction());
            peer.append(e.peer());
            bytes.append(e.bytes());
            start.append(e.startNs() / 1000);
            end.append(e.endNs() / 1000);
        }
        return t.addColumns(rank, coll, seqs, phase, step, segment, chunk, dir, peer, bytes, start, end);
    }

    /**
     * The step picture of one collective: for each rank (row) and each step (column, phases one after the
     * other), the segment that rank sent at that step (-1: sent nothing). For a ring all-reduce on 4 ranks
     * the diagonals show each segment travelling around the ring.
     */
    public synchronized int[][] sendGrid(long seq, int ranks) {
        // Phases in the order the algorithms run them (not the order of the merged events: the naive
        // all-reduce's rank 0 only sends in its second phase), others after them as first seen.
        List<String> phases = new ArrayList<>();
        for (Event e : events) {
            if (e.seq() == seq && e.direction().equals("send") && !phases.contains(e.phase())) {
                phases.add(e.phase());
            }
        }
        phases.sort(Comparator.comparingInt(RingTrace::phaseOrder));
        int[] stepsPerPhase = new int[phases.size()];
        for (Event e : events) {
            if (e.seq() == seq && e.direction().equals("send")) {
                int i = phases.indexOf(e.phase());
                stepsPerPhase[i] = Math.max(stepsPerPhase[i], e.step() + 1);
            }
        }
        int[] first = new int[phases.size() + 1];
        for (int i = 0; i < phases.size(); i++) {
            first[i + 1] = first[i] + stepsPerPhase[i];
        }
        int[][] grid = new int[ranks][first[phases.size()]];
        for (int[] row : grid) {
            java.util.Arrays.fill(row, -1);
        }
        for (Event e : events) {
            if (e.seq() == seq && e.direction().equals("send") && e.rank() < ranks) {
                grid[e.rank()][first[phases.indexOf(e.phase())] + e.step()] = e.segment();
            }
        }
        return grid;
    }

    /** Where a phase comes in its collective: first halves before second halves; unknown phases last (stable sort). */
    private static int phaseOrder(String phase) {
        int i = List.of("reduce-scatter", "reduce", "all-gather", "broadcast").indexOf(phase);
        return i < 0 ? Integer.MAX_VALUE : i;
    }

    /** {@link #sendGrid} as a heat map: x = step, y = rank, colour = segment sent. */
    public HeatMapChart stepChart(long seq, int ranks) {
        int[][] grid = sendGrid(seq, ranks);
        int steps = grid.length == 0 ? 0 : grid[0].length;
        int[] xs = new int[steps];
        for (int i = 0; i < steps; i++) {
            xs[i] = i;
        }
        int[] ys = new int[ranks];
        for (int i = 0; i < ranks; i++) {
            ys[i] = i;
        }
        // HeatMapChart wants {x, y, value} triples.
        List<Number[]> cells = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            for (int s = 0; s < steps; s++) {
                cells.add(new Number[] {s, r, grid[r][s]});
            }
        }
        HeatMapChart chart = new HeatMapChartBuilder().width(120 + 70 * Math.max(steps, 2)).height(120 + 60 * ranks)
                .title("segment sent by each rank at each step").xAxisTitle("step").yAxisTitle("rank").build();
        chart.getStyler().setShowValue(true);
        chart.getStyler().setPlotContentSize(1);
        chart.addSeries("segment", box(xs), box(ys), cells);
        return chart;
    }

    private static List<Integer> box(int[] a) {
        List<Integer> l = new ArrayList<>(a.length);
        for (int v : a) {
            l.add(v);
        }
        return l;
    }
}
