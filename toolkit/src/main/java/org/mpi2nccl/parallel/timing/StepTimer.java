package org.mpi2nccl.parallel.timing;

import org.mpi2nccl.parallel.StepListener;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.comm.StagingTimes;
import org.mpi2nccl.parallel.DataParallel;

/**
 * Where the time of a {@link DataParallel}'s steps goes ({@link TimeBreakdown}): it listens to the steps
 * ({@link StepListener}) and times their {@link Phase}s with a {@link PhaseClock}, host time on the CPU,
 * CUDA events on a GPU. It also counts the all-reduce calls and their bytes and, on the MPI route with GPU arrays,
 * splits each call into its copy to the host, MPI's all-reduce and the copy back. Lessons 03 and 05 print and plot
 * these figures.
 *
 * <pre>{@code
 * StepTimer timer = StepTimer.attach(dp);
 * ... training ...
 * System.out.println(timer.times());
 * }</pre>
 */
public final class StepTimer implements StepListener, AutoCloseable {
    private final PhaseClock clock;
    private final boolean queuedOnDevice;
    private final long[] phaseNanos = new long[Phase.values().length];
    private long steps;

    private final AtomicLong d2hNanos = new AtomicLong();
    private final AtomicLong collectiveNanos = new AtomicLong();
    private final AtomicLong h2dNanos = new AtomicLong();
    private final AtomicLong collectives = new AtomicLong();
    private final AtomicLong bytesReduced = new AtomicLong();

    /**
     * A timer for {@code dp}'s steps (not attached yet). On a GPU, reading a step's times waits for the GPU, at most the
     * communicator's timeout and {@link DataParallel#WAIT_MARGIN}; a step the GPU never finishes fails the rank, and
     * {@code onStuck} is told why first (the GPU is then stuck: whoever cleans up must not wait for it).
     */
    public StepTimer(DataParallel dp, Consumer<String> onStuck) {
        Communicator comm = dp.communicator();
        this.clock = PhaseClock.forBackend(dp.model().parameters().get(0).device().backend(),
                comm.timeout().plus(DataParallel.WAIT_MARGIN), "rank " + comm.rank(), onStuck);
        // NCCL queues its collectives on the GPU: their host time says nothing, their time is the communication phase.
        this.queuedOnDevice = "nccl".equals(comm.kind());
    }

    /** A timer told of {@code dp}'s steps from now on; a stuck GPU is reported on standard error. */
    public static StepTimer attach(DataParallel dp) {
        StepTimer t = new StepTimer(dp, System.err::println);
        dp.listen(t);
        return t;
    }

    @Override
    public void stepStarted() {
        clock.stepStart();
    }

    @Override
    public void forwardDone() {
        clock.phaseEnd(Phase.FORWARD);
    }

    @Override
    public void backwardDone() {
        clock.phaseEnd(Phase.BACKWARD);
    }

    @Override
    public void gradientsAveraged() {
        clock.phaseEnd(Phase.COMMUNICATION);
    }

    @Override
    public void optimizerDone() {
        clock.phaseEnd(Phase.OPTIMIZER);
        steps++;
    }

    @Override
    public void allReduced(Communicator via, CommBuffer buffer, long nanos) {
        StagingTimes st = via instanceof MpjCommunicator m && buffer.onDevice() ? m.lastStaging() : null;
        if (st != null) {
            d2hNanos.addAndGet(st.deviceToHostNanos());
            collectiveNanos.addAndGet(st.collectiveNanos());
            h2dNanos.addAndGet(st.hostToDeviceNanos());
        } else {
            collectiveNanos.addAndGet(nanos);
        }
        collectives.incrementAndGet();
        bytesReduced.addAndGet(buffer.bytes());
    }

    /** All-reduces that ran inside a replayed CUDA graph (no call to time): counted here. */
    public void countRecorded(int calls, long bytes) {
        collectives.addAndGet(calls);
        bytesReduced.addAndGet(bytes);
    }

    /** Time spent in each phase of every step so far (waits for the GPU to finish them). */
    public TimeBreakdown times() {
        clock.drainInto(phaseNanos);
        long comm = phaseNanos[Phase.COMMUNICATION.ordinal()];
        return new TimeBreakdown(steps, phaseNanos[Phase.FORWARD.ordinal()], phaseNanos[Phase.BACKWARD.ordinal()], comm,
                phaseNanos[Phase.OPTIMIZER.ordinal()], d2hNanos.get(), queuedOnDevice ? comm : collectiveNanos.get(),
                h2dNanos.get(), collectives.get(), bytesReduced.get());
    }

    /** Frees the clock's CUDA events. */
    @Override
    public void close() {
        clock.close();
    }
}
