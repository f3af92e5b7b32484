package org.mpi2nccl.dist;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.StagingTimes;
import org.mpi2nccl.comm.nccl.NcclCommunicator;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.StreamHandoff;
import org.mpi2nccl.tensor.Backend;

/**
 * A step's gradients averaged over the ranks: one all-reduce per {@link GradientBucket}, launched in bucket order
 * (every rank must issue the same collectives in the same order). With overlap, backward reports each final gradient
 * ({@link #onGradReady}) and a bucket is launched as soon as all its gradients are, while backward computes the rest;
 * {@link #finish} launches the buckets left and waits for all of them. The collectives are counted and timed here,
 * on the MPI route with GPU arrays including the copies through host memory.
 *
 * <p>While {@link GraphedSteps} records a step, complete buckets are handled as the recording needs: packed and left
 * to the replay (backward recorded in pieces), or all-reduced into the recording (NCCL's calls recorded too).
 */
final class GradientReduction implements AutoCloseable {
    /** How much longer than the communicator's own timeout a bucket's all-reduce is waited for. */
    static final Duration WAIT_MARGIN = Duration.ofSeconds(30);

    private final Communicator comm;
    private final Communicator beside;      // the buckets launched while backward runs: comm, or comm with fewer CTAs
    private final GradientBuckets buckets;
    private final Backend backend;
    private final boolean commOnComputeStream;
    private final boolean queuedOnDevice;
    private final boolean alone;
    private final ExecutorService commThread;
    private final StreamHandoff toComm;     // NCCL on a stream of its own: model stream -> NCCL stream per bucket
    private final StreamHandoff fromComm;   // ... and NCCL stream -> model stream before the optimizer
    private final List<Future<?>> inFlight = new ArrayList<>();
    private int nextLaunch;
    private boolean reducing;
    private IntConsumer cutPiece;           // recording backward in pieces: told how many buckets the piece completes
    private boolean recordingCollectives;   // recording the all-reduces too: recorded, not run, so not counted here

    private final AtomicLong d2hNanos = new AtomicLong();
    private final AtomicLong collectiveNanos = new AtomicLong();
    private final AtomicLong h2dNanos = new AtomicLong();
    private final AtomicLong collectives = new AtomicLong();
    private final AtomicLong bytesReduced = new AtomicLong();
    private final AtomicLong launchedBeside = new AtomicLong();    // calls made on the CTA-limited communicator

    GradientReduction(Communicator comm, GradientBuckets buckets, Backend backend, DataParallelOptions options) {
        this.comm = comm;
        this.buckets = buckets;
        this.backend = backend;
        this.commOnComputeStream = options.commOnComputeStream();
        // NCCL queues collectives on a CUDA stream and returns: a host thread would have nothing to overlap.
        this.queuedOnDevice = "nccl".equals(comm.kind());
        // One rank: the average of one gradient is itself, so a single-rank run costs what plain training costs
        // (the baseline of the speedup experiment).
        this.alone = comm.size() == 1;
        this.commThread = options.overlap() && !queuedOnDevice ? Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "data-parallel-allreduce-rank-" + comm.rank());
            t.setDaemon(true);
            return t;
        }) : null;
        // NCCL on its own stream: ordered with the model's stream by events, so that backward's remaining kernels
        // run beside the all-reduce (on one stream they would queue behind it) and the host never waits.
        long modelStream = backend instanceof CudaBackend gpu ? gpu.context().streamAddress() : 0;
        long commStream = !alone && comm instanceof NcclCommunicator n ? n.streamAddress() : 0;
        boolean ownStream = modelStream != 0 && commStream != 0 && commStream != modelStream;
        int device = backend.device().index();
        this.toComm = ownStream ? new StreamHandoff(device, modelStream, commStream) : null;
        this.fromComm = ownStream ? new StreamHandoff(device, commStream, modelStream) : null;
        // NCCL's CTAs each hold an SM for the whole all-reduce: beside backward, fewer of them leave backward more SMs.
        // The tail, which nothing runs beside, keeps the full communicator. Collective: every rank splits.
        try {
            this.beside = options.overlapCtas() > 0 && options.overlap() && !alone && comm instanceof NcclCommunicator n
                    ? n.withMaxCtas(options.overlapCtas()) : comm;
        } catch (RuntimeException e) {
            if (toComm != null) toComm.close();
            if (fromComm != null) fromComm.close();
            throw e;
        }
    }

    /** A step's reduction begins: no bucket launched, no gradient final yet. */
    void start() {
        if (reducing) throw new IllegalStateException("DataParallel: a gradient reduction is already under way");
        reducing = true;
        nextLaunch = 0;
        inFlight.clear();
        for (GradientBucket b : buckets.buckets) b.ready = 0;
    }

    /**
     * Recording backward in pieces (the all-reduces stay the communicator's calls): a bucket that backward completes is
     * packed, not launched, and {@code cutPiece} ends the piece of backward after which it is launched at every replay.
     */
    void startRecordingPieces(IntConsumer cutPiece) {
        start();
        this.cutPiece = cutPiece;
    }

    /** Recording the all-reduces too: the last bucket is left to the step's tail, recorded after backward. */
    void startRecordingCollectives() {
        start();
        recordingCollectives = true;
    }

    /** The recording has its buckets (or failed): back to running steps. */
    void endRecording() {
        cutPiece = null;
        reducing = false;
        recordingCollectives = false;
    }

    /** Called by backward for each leaf whose gradient is final. */
    void onGradReady(Tensor leaf) {
        GradientBucket b = buckets.of(leaf);
        if (b == null || alone) return;
        b.ready++;
        // Launch in bucket order only: every rank must issue the same collectives in the same order.
        // Recording the all-reduces too: the last bucket is the step's communication tail, recorded after backward.
        int last = recordingCollectives ? buckets.size() - 1 : buckets.size();
        int complete = 0;
        while (nextLaunch < last && buckets.buckets.get(nextLaunch).ready == buckets.buckets.get(nextLaunch).params.size()) {
            GradientBucket done = buckets.buckets.get(nextLaunch++);
            if (cutPiece == null) {
                launch(done, beside);
            } else {
                done.pack();
                complete++;
            }
        }
        if (complete > 0) cutPiece.accept(complete);
    }

    /** A replay between graphs: the next {@code count} buckets, which the piece of backward just launched completed. */
    void launchNext(int count) {
        for (int k = 0; k < count; k++) launch(buckets.buckets.get(nextLaunch++), beside);
    }

    private void launch(GradientBucket b, Communicator via) {
        b.pack();
        if (toComm != null) toComm.handOff();
        else if (!backend.device().isCpu() && !commOnComputeStream) backend.synchronize();
        if (commThread != null) inFlight.add(commThread.submit(() -> reduce(b, via)));
        else reduce(b, via);
    }

    private void reduce(GradientBucket b, Communicator via) {
        long t0 = System.nanoTime();
        via.allReduce(b.buffer(), Reduction.AVG);
        if (via != comm) launchedBeside.incrementAndGet();
        if (recordingCollectives) return;       // recorded, not run: counted at every replay
        long t1 = System.nanoTime();
        StagingTimes st = Staging.of(comm);
        if (st != null && b.buffer().onDevice()) {
            d2hNanos.addAndGet(st.deviceToHostNanos());
            collectiveNanos.addAndGet(st.collectiveNanos());
            h2dNanos.addAndGet(st.hostToDeviceNanos());
        } else {
            collectiveNanos.addAndGet(t1 - t0);
        }
        collectives.incrementAndGet();
        bytesReduced.addAndGet(b.bytes());
    }

    /** A replay ran the recorded all-reduces: one per bucket. */
    void countReplayed() {
        collectives.addAndGet(buckets.size());
        bytesReduced.addAndGet(buckets.totalBytes());
    }

    /**
     * After backward, the buckets it did not launch: through NCCL as one group (one launch), else one by one. Every
     * step path ends its reduction here (eager, replayed, recorded with the all-reduces), so all of them issue the same
     * NCCL calls; the MPI routes reduce one bucket at a time as before.
     */
    void launchTail() {
        if (alone) return;
        if (comm instanceof NcclCommunicator && buckets.size() - nextLaunch > 1) NcclCommunicator.group(this::launchRemaining);
        else launchRemaining();
    }

    /** Launches the buckets not launched yet, in bucket order. */
    private void launchRemaining() {
        while (nextLaunch < buckets.size()) launch(buckets.buckets.get(nextLaunch++), comm);
    }

    /** Buckets launched so far in this step (those before it are being, or have been, all-reduced). */
    int launched() {
        return nextLaunch;
    }

    /** Whether NCCL runs on a stream of its own (then its calls can be recorded into the model stream's graphs). */
    boolean ownStream() {
        return fromComm != null;
    }

    /** Orders the model's stream after NCCL's: what the model does next sees the averaged gradients. */
    void rejoin() {
        fromComm.handOff();
    }

    /** Launches what backward left, waits for every all-reduce of the step and unpacks the averaged gradients. */
    void finish() {
        if (alone) {
            reducing = false;
            return;
        }
        try {
            // Buckets backward did not launch (overlap off, the tail of a replay between graphs, a parameter unused in
            // this step): reduce them now, zeros included.
            launchTail();
            Duration wait = comm.timeout().plus(WAIT_MARGIN);
            for (int i = 0; i < inFlight.size(); i++) await(inFlight.get(i), i, wait);
            if (fromComm != null) fromComm.handOff();
            else if (!commOnComputeStream) {
                if (beside != comm) beside.synchronize();
                comm.synchronize();
            }
            for (GradientBucket b : buckets.buckets) b.unpack();
        } finally {
            inFlight.clear();
            reducing = false;
        }
    }

    private void await(Future<?> f, int bucket, Duration wait) {
        try {
            f.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) throw r;
            if (c instanceof Error err) throw err;
            throw new IllegalStateException("rank " + comm.rank() + ": all-reduce of gradient bucket " + bucket + " failed: " + c, c);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new IllegalStateException("rank " + comm.rank() + ": the all-reduce of gradient bucket " + bucket
                    + " did not finish within " + wait.toSeconds() + " s (a rank stopped or skipped a step?)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("rank " + comm.rank() + ": interrupted while waiting for the gradient all-reduce", e);
        }
    }

    /** {@code steps}' phase times (indexed by {@link Phase} ordinal) with the collectives' own times and counts. */
    TimeBreakdown times(long steps, long[] phaseNanos) {
        long comm = phaseNanos[Phase.COMMUNICATION.ordinal()];
        return new TimeBreakdown(steps, phaseNanos[Phase.FORWARD.ordinal()], phaseNanos[Phase.BACKWARD.ordinal()], comm,
                phaseNanos[Phase.OPTIMIZER.ordinal()], d2hNanos.get(),
                // Collectives queued on the GPU take no host time: their time is the communication phase.
                queuedOnDevice ? comm : collectiveNanos.get(), h2dNanos.get(), collectives.get(), bytesReduced.get());
    }

    /**
     * Where the buckets launched while backward runs go, when that is not the given communicator: "N all-reduce calls
     * beside backward through a communicator of at most K CTAs" (calls recorded into graphs counted once); else null.
     */
    String besideNote() {
        if (beside == comm) return null;
        int ctas = ((NcclCommunicator) beside).options().maxCtas();
        return launchedBeside.get() + " all-reduce calls beside backward through a communicator of at most " + ctas + " CTAs";
    }

    /** Stops the all-reduce thread, frees the stream hand-offs and the CTA-limited communicator (not the buckets or the given communicator). */
    @Override
    public void close() {
        if (beside != comm) beside.close();
        if (commThread != null) commThread.shutdownNow();
        if (toComm != null) toComm.close();
        if (fromComm != null) fromComm.close();
    }
}
