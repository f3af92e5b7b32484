package org.mpi2nccl.parallel.timing;

import org.mpi2nccl.parallel.StepListener;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.timing.TimelineEvent.Kind;
import org.mpi2nccl.tensor.Backend;

/**
 * One rank's timeline of a {@link DataParallel}'s steps: when forward, backward, each bucket's all-reduce, the wait
 * for the gradients and the optimizer ran, on which thread, with each all-reduce's bucket and bytes. It is the
 * picture that explains overlap (Horovod's timeline, the PyTorch profiler's traces): with overlap on, a bucket's
 * all-reduce bar starts under the backward bar. Lesson 03 draws it; {@link #gather} collects every rank's events,
 * and {@link TimelineTrace} writes them as a Chrome trace (ui.perfetto.dev) or draws them as a chart.
 *
 * <p>Clocks: {@link #attach} is collective. The ranks leave a barrier together and each takes that moment as its
 * time zero, so every time is "since the ranks last met". The error is how far apart the ranks leave a barrier:
 * microseconds for thread ranks, one message latency over MPI. Over a few recorded steps clock drift adds nothing
 * visible.
 *
 * <p>Cost: a {@link DataParallel} without a timeline calls its empty default listener, as before; this class then
 * does not exist for it. With one, each event is a {@code System.nanoTime()} and seven longs written into an array
 * that grows by doubling; only the first {@code maxSteps} steps are kept, so a long training does not grow it. The
 * benchmark {@link TimelineOverhead} measures a step with and without it.
 *
 * <p>On a GPU ({@link org.mpi2nccl.parallel.gpu.GpuDataParallel}) the host only queues the step's kernels, so a host
 * timestamp would time the launches. There each phase boundary and each bucket becoming ready is a CUDA event recorded
 * on the model's stream, and an NCCL all-reduce is two events on NCCL's stream ({@link CudaMarks}): recording them
 * queues markers and returns, the host does not wait. They are read, waiting for the GPU, when the timeline is read
 * ({@link #events}, {@link #gather}). An all-reduce the host waits for (MPI, or the hand-written ring, through host
 * memory) keeps host times, on the same axis. NCCL's calls only queue work: their events come from
 * {@code GpuDataParallel} ({@link #markOn}, {@link #allReducedOnGpu}); under the plain {@link DataParallel} on NCCL the
 * all-reduce lane stays empty.
 *
 * <pre>{@code
 * Timeline tl = Timeline.attach(dp, 2);          // collective: every rank attaches
 * dp.step(...); dp.step(...);
 * TimelineTrace trace = tl.gather(comm);        // collective: every rank gets every rank's events
 * if (rank == 0) { trace.write(Path.of("trace.json")); display(trace.chart("two steps")); }
 * }</pre>
 */
public final class Timeline implements StepListener {
    /**
     * Longs per event: kind, step, bucket, bytes, start, end, flags: {@link #ON_STEP_THREAD} (it ran on the step's
     * own thread), {@link #MARKED} (start and end are numbers of {@link CudaMarks}, not times yet).
     */
    static final int FIELDS = 7;
    private static final long ON_STEP_THREAD = 1, MARKED = 2;

    private final int rank;
    private final int maxSteps;
    private final long origin;
    private final CudaMarks marks;         // a GPU rank's clock; null: host times
    private long[] events = new long[FIELDS * 32];
    private int count;
    // Written and read on the step's thread only (the all-reduce thread reads them in allReduced: see there).
    private volatile Thread stepThread;
    private volatile int step = -1;
    // Between a step's start and its optimizer's end. A step replayed from CUDA graphs tells this timeline nothing,
    // yet may launch buckets (and record a new graph) through the same hooks: outside a step they are not kept.
    private volatile boolean inStep;
    private int reduced;                  // all-reduces returned in this step: the next one is this bucket
    private long phaseStart;
    private long backwardEnd;

    Timeline(int rank, int maxSteps, long origin) {
        this(rank, maxSteps, origin, null);
    }

    private Timeline(int rank, int maxSteps, long origin, CudaMarks marks) {
        this.rank = rank;
        this.maxSteps = maxSteps;
        this.origin = origin;
        this.marks = marks;
    }

    /**
     * A timeline of {@code dp}'s next {@code maxSteps} steps, listening to it from now on (it replaces another
     * listener, such as a {@link StepTimer}). Collective: the ranks meet in a barrier to agree on time zero.
     */
    public static Timeline attach(DataParallel dp, int maxSteps) {
        Backend backend = dp.model().parameters().get(0).device().backend();
        Timeline t;
        if (backend instanceof CudaBackend gpu) {
            Communicator comm = dp.communicator();
            checkSteps(maxSteps);
            // per step: its start, 4 phase ends, and per bucket its ready instant and an all-reduce's start and end
            int perStep = 5 + 3 * dp.bucketCount();
            CudaMarks marks = new CudaMarks(gpu, comm.timeout().plus(DataParallel.WAIT_MARGIN), "rank " + comm.rank(),
                    (int) Math.min(4096L, (long) maxSteps * perStep));
            gpu.synchronize();                  // the stream idle: time zero's event is reached at once
            comm.barrier();
            long origin = System.nanoTime();
            marks.zero();
            t = new Timeline(comm.rank(), maxSteps, origin, marks);
        } else {
            t = start(dp.communicator(), maxSteps);
        }
        dp.listen(t);
        return t;
    }

    private static void checkSteps(int maxSteps) {
        if (maxSteps < 1) throw new IllegalArgumentException("a timeline records at least one step, got " + maxSteps);
    }

    /**
     * A timeline not attached to any step, for recording another loop's events with {@link #record}. Collective:
     * the ranks of {@code comm} meet in a barrier to agree on time zero.
     */
    public static Timeline start(Communicator comm, int maxSteps) {
        checkSteps(maxSteps);
        comm.barrier();
        return new Timeline(comm.rank(), maxSteps, System.nanoTime());
    }

    public int rank() {
        return rank;
    }

    /** Whether the current step is one to keep (and has not ended). */
    private boolean recording() {
        return inStep && step >= 0 && step < maxSteps;
    }

    /** Whether the next step will be recorded (a GPU step then runs eagerly: a replayed CUDA graph has no hooks). */
    public boolean recordsNextStep() {
        return step + 1 < maxSteps;
    }

    /** Whether the current step is recorded. */
    public boolean recordsThisStep() {
        return recording();
    }

    /** Whether this rank's times are the GPU's (CUDA events), read when the timeline is read. */
    public boolean onGpu() {
        return marks != null;
    }

    /** Now: the host's clock, or on a GPU a mark on the model's stream (only while recording: marks cost an event). */
    private long now() {
        return marks == null ? System.nanoTime() : recording() ? marks.mark() : -1;
    }

    @Override
    public void stepStarted() {
        step++;
        inStep = true;
        stepThread = Thread.currentThread();
        reduced = 0;
        phaseStart = now();
    }

    @Override
    public void forwardDone() {
        phaseStart = phase(Kind.FORWARD, phaseStart);
    }

    @Override
    public void bucketLaunched(int bucket) {
        if (recording()) {
            long now = now();
            onStepThread(Kind.BUCKET_READY, bucket, now, now);
        }
    }

    /** An event of the step's thread, from {@link #now()} values: host times made relative, or GPU marks. */
    private void onStepThread(Kind kind, int bucket, long start, long end) {
        if (marks == null) store(kind, step, bucket, 0, start - origin, end - origin, ON_STEP_THREAD);
        else store(kind, step, bucket, 0, start, end, ON_STEP_THREAD | MARKED);
    }

    @Override
    public void backwardDone() {
        phaseStart = backwardEnd = phase(Kind.BACKWARD, phaseStart);
    }

    @Override
    public void gradientsAveraged() {
        phaseStart = phase(Kind.WAIT, phaseStart);
    }

    @Override
    public void optimizerDone() {
        phase(Kind.OPTIMIZER, phaseStart);
        inStep = false;
    }

    /**
     * A bucket's all-reduce returned. They return in bucket order (launched in that order, on one thread), so the
     * step's n-th call is bucket n. {@code stepStarted} wrote {@code step} before launching any of them.
     */
    @Override
    public void allReduced(Communicator via, CommBuffer buffer, long nanos) {
        if (!recording()) return;
        // NCCL only queued it: its GPU times come from allReducedOnGpu
        if (marks != null && via != null && "nccl".equals(via.kind())) return;
        long end = System.nanoTime();
        int bucket;
        synchronized (this) {
            bucket = reduced++;
        }
        record(Kind.ALL_REDUCE, step, bucket, buffer.bytes(), end - nanos, end, Thread.currentThread() == stepThread);
    }

    /**
     * A GPU rank: records a mark on {@code stream} (an NCCL communicator's {@code cudaStream_t}), to pass to
     * {@link #allReducedOnGpu} as an all-reduce's start or end; -1 when this step is not recorded.
     */
    public long markOn(long stream) {
        return marks != null && recording() ? marks.mark(CudaMarks.stream(stream)) : -1;
    }

    /**
     * A GPU rank: the step's next bucket was all-reduced on NCCL's stream between marks {@code start} and {@code end}
     * ({@link #markOn}), queued by the step's thread.
     */
    public void allReducedOnGpu(long bytes, long start, long end) {
        if (start < 0 || end < 0 || !recording()) return;
        store(Kind.ALL_REDUCE, step, reduced++, bytes, start, end, ON_STEP_THREAD | MARKED);
    }

    /** Ends a phase of the step's thread that began at {@code start}: recorded, and its end is the next one's start. */
    private long phase(Kind kind, long start) {
        long now = now();
        if (recording()) onStepThread(kind, -1, start, now);
        return now;
    }

    /**
     * Records one event (times from {@code System.nanoTime()}); {@code bucket} -1 and {@code bytes} 0 where they do
     * not apply; {@code onStepThread}: whether it ran on the thread that runs the step.
     */
    public void record(Kind kind, int step, int bucket, long bytes, long startNanos, long endNanos, boolean onStepThread) {
        store(kind, step, bucket, bytes, startNanos - origin, endNanos - origin, onStepThread ? ON_STEP_THREAD : 0);
    }

    /** Stores one event: times since time zero, or (flag {@link #MARKED}) mark numbers. */
    private synchronized void store(Kind kind, int step, int bucket, long bytes, long start, long end, long flags) {
        if (count * FIELDS == events.length) events = Arrays.copyOf(events, events.length * 2);
        int at = count++ * FIELDS;
        events[at] = kind.ordinal();
        events[at + 1] = step;
        events[at + 2] = bucket;
        events[at + 3] = bytes;
        events[at + 4] = start;
        events[at + 5] = end;
        events[at + 6] = flags;
    }

    /** Turns the marks recorded so far into times (waits for the GPU to pass them), then frees their events. */
    private synchronized void resolve() {
        if (marks == null) return;
        for (int i = 0; i < count; i++) {
            int at = i * FIELDS;
            if ((events[at + 6] & MARKED) == 0) continue;
            long start = events[at + 4], end = events[at + 5];
            events[at + 4] = marks.nanos((int) start);
            events[at + 5] = end == start ? events[at + 4] : marks.nanos((int) end);
            events[at + 6] &= ~MARKED;
        }
        marks.freeMarks();
    }

    /** The time {@code record} takes as zero (a {@code System.nanoTime()} value). */
    public long origin() {
        return origin;
    }

    /** This rank's events so far, in the order they were recorded. */
    public synchronized List<TimelineEvent> events() {
        resolve();
        return decode(rank, events, 0, count);
    }

    /**
     * Every rank's events, on every rank. Collective: each rank sends its events (as longs) to all; the ranks first
     * agree on the longest list, since an all-gather moves the same count from each. {@code comm} carries host
     * arrays: on GPUs pass the MPI communicator of the same ranks, not NCCL's. A GPU rank first waits for its GPU to
     * reach the recorded events.
     */
    public TimelineTrace gather(Communicator comm) {
        long[] mine;
        int n;
        synchronized (this) {
            resolve();
            n = count;
            mine = Arrays.copyOf(events, n * FIELDS);
        }
        long[] longest = {n};
        comm.allReduce(HostBuffer.of(longest), Reduction.MAX);
        int per = 1 + (int) longest[0] * FIELDS;                 // the count first, then the events, padded
        long[] send = new long[per];
        send[0] = n;
        System.arraycopy(mine, 0, send, 1, mine.length);
        long[] all = new long[per * comm.size()];
        comm.allGather(HostBuffer.of(send), HostBuffer.of(all));
        List<List<TimelineEvent>> ranks = new ArrayList<>();
        for (int r = 0; r < comm.size(); r++) ranks.add(decode(r, all, r * per + 1, (int) all[r * per]));
        return new TimelineTrace(ranks);
    }

    private static List<TimelineEvent> decode(int rank, long[] a, int from, int n) {
        List<TimelineEvent> out = new ArrayList<>(n);
        Kind[] kinds = Kind.values();
        for (int i = 0; i < n; i++) {
            int at = from + i * FIELDS;
            out.add(new TimelineEvent(rank, kinds[(int) a[at]], (int) a[at + 1], (int) a[at + 2], a[at + 3],
                    a[at + 4], a[at + 5], (a[at + 6] & ON_STEP_THREAD) != 0));
        }
        return out;
    }
}
