package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.Deadline;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Transport;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import org.knowm.xchart.XYChart;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * Lesson 02's step trace: every message a ring collective sent or received, with the step, segment and chunk it
 * carried and when, the material for drawing "who sends which chunk at each step". It is a {@link RingObserver}:
 * pass one per rank to {@link RingCommunicator.Builder#observer}; it wraps the transport to see each message, and
 * labels it with the step the algorithm announced. Merge the ranks' traces with {@link #merge}, or gather them
 * from rank processes with {@link TraceExchange}.
 *
 * <p>Times are nanoseconds since the collective started on the recording rank (ranks in different processes
 * have different clocks: compare times within a rank, steps across ranks). A message's start is when it was
 * posted, its end when the algorithm's wait for it returned.
 */
public final class RingTrace implements RingObserver {

    /**
     * One message.
     *
     * @param phase     "reduce-scatter", "all-gather", "reduce", "broadcast"
     * @param step      step of the phase, from 0
     * @param segment   which segment of the buffer the message carries (for the ring: 0..size-1)
     * @param chunk     which chunk of that segment, from 0 (in the order posted within the step)
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
    // The step the algorithm announced last, and how many messages each way it has posted in it.
    private String phase = "";
    private int step;
    private int sendSegment;
    private int recvSegment;
    private int sends;
    private int recvs;

    @Override
    public synchronized Transport begin(CollectiveCall call, Transport transport) {
        origin = System.nanoTime();
        collective = call.collective().label();
        seq = call.seq();
        return new Watched(transport);
    }

    @Override
    public synchronized void step(String phase, int step, int sendSegment, int recvSegment) {
        this.phase = phase;
        this.step = step;
        this.sendSegment = sendSegment;
        this.recvSegment = recvSegment;
        sends = 0;
        recvs = 0;
    }

    /** The event of a message being posted now; its end time is filled in when the wait for it returns. */
    private synchronized Event posted(int rank, boolean send, int peer, long bytes) {
        int chunk = send ? sends++ : recvs++;
        return new Event(rank, collective, seq, phase, step, send ? sendSegment : recvSegment, chunk,
                send ? "send" : "recv", peer, bytes, System.nanoTime() - origin, -1);
    }

    private synchronized void completed(Event e) {
        events.add(new Event(e.rank(), e.collective(), e.seq(), e.phase(), e.step(), e.segment(), e.chunk(),
                e.direction(), e.peer(), e.bytes(), e.startNs(), System.nanoTime() - origin));
    }

    /** The algorithm's transport, seen through the trace: each message is labelled when posted, recorded when waited for. */
    private final class Watched implements Transport {
        private final Transport inner;

        Watched(Transport inner) {
            this.inner = inner;
        }

        @Override
        public int rank() {
            return inner.rank();
        }

        @Override
        public int size() {
            return inner.size();
        }

        @Override
        public String kind() {
            return inner.kind();
        }

        @Override
        public Pending isend(HostBuffer buffer, int dest, int tag) {
            Event e = posted(rank(), true, dest, buffer.bytes());
            return new Message(inner.isend(buffer, dest, tag), e);
        }

        @Override
        public Pending irecv(HostBuffer buffer, int src, int tag) {
            Event e = posted(rank(), false, src, buffer.bytes());
            return new Message(inner.irecv(buffer, src, tag), e);
        }

        @Override
        public void await(Deadline deadline, CollectiveCall call, Pending... transfers) {
            Pending[] real = new Pending[transfers.length];
            for (int i = 0; i < transfers.length; i++) {
                real[i] = transfers[i] instanceof Message m ? m.inner : transfers[i];
            }
            inner.await(deadline, call, real);
            for (Pending p : transfers) {
                if (p instanceof Message m && !m.recorded) {
                    m.recorded = true;
                    completed(m.event);
                }
            }
        }

        /** The communicator owns the transport and closes it; the trace's view of it has nothing to free. */
        @Override
        public void close() {
        }
    }

    /** A message in flight and its event. */
    private static final class Message implements Transport.Pending {
        private final Transport.Pending inner;
        private final Event event;
        private boolean recorded;

        Message(Transport.Pending inner, Event event) {
            this.inner = inner;
            this.event = event;
        }

        @Override
        public boolean done() {
            return inner.done();
        }

        @Override
        public String describe() {
            return inner.describe();
        }
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

    /** {@link #sendGrid} as a grid of squares: x = step, y = rank, one colour and legend entry per segment sent. */
    public XYChart stepChart(long seq, int ranks) {
        return RingStepChart.of(sendGrid(seq, ranks), ranks);
    }
}
