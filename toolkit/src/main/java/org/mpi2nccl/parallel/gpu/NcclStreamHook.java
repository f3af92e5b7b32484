package org.mpi2nccl.parallel.gpu;

import java.util.concurrent.atomic.AtomicLong;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.nccl.NcclCommunicator;
import org.mpi2nccl.cuda.CudaBackend;
import org.mpi2nccl.cuda.StreamHandoff;
import org.mpi2nccl.parallel.AllReduceHook;
import org.mpi2nccl.parallel.CommHook;
import org.mpi2nccl.parallel.GradientBuckets.Bucket;
import org.mpi2nccl.parallel.timing.Timeline;
import org.mpi2nccl.tensor.Backend;

/**
 * The data-parallel step's {@link CommHook} on GPUs, as PyTorch DDP queues its all-reduces:
 * <ul>
 *   <li>NCCL on a CUDA stream of its own is ordered with the model's stream by CUDA events ({@link StreamHandoff}):
 *       backward's remaining kernels run beside the all-reduce and the host never waits for the GPU (the plain hook
 *       synchronises the GPU before each all-reduce);</li>
 *   <li>the buckets left after backward are launched as one NCCL group;</li>
 *   <li>with {@code overlapCtas} the buckets all-reduced beside backward go through a second communicator limited to
 *       that many CTAs, leaving backward more SMs;</li>
 *   <li>a {@link Timeline} listening gets each NCCL all-reduce's GPU time, two events on NCCL's stream.</li>
 * </ul>
 * Anywhere else (the CPU, MPI, one rank) it does what {@link AllReduceHook} does.
 */
final class NcclStreamHook implements CommHook {
    private final Communicator comm;
    private final AllReduceHook plain;
    private final StreamHandoff toComm;     // NCCL on a stream of its own: model stream -> NCCL stream per bucket
    private final StreamHandoff fromComm;   // ... and NCCL stream -> model stream before the optimizer
    private final Communicator beside;      // the buckets launched while backward runs: comm, or comm with fewer CTAs
    private final AtomicLong launchedBeside = new AtomicLong();
    private volatile Timeline timeline;     // listening, or null (then nothing here records events)
    private boolean recording;              // a CUDA graph captures the all-reduces: recorded, not run, so not timed

    /** Collective when {@code overlapCtas} > 0 on NCCL: every rank splits its communicator. */
    NcclStreamHook(Communicator comm, Backend backend, boolean alone, boolean overlap, int overlapCtas) {
        this.comm = comm;
        this.plain = new AllReduceHook(comm, backend);
        long modelStream = backend instanceof CudaBackend g ? g.context().streamAddress() : 0;
        long commStream = !alone && comm instanceof NcclCommunicator n ? n.streamAddress() : 0;
        boolean ownStream = modelStream != 0 && commStream != 0 && commStream != modelStream;
        int device = backend.device().index();
        StreamHandoff to = null, from = null;
        try {
            to = ownStream ? new StreamHandoff(device, modelStream, commStream) : null;
            from = ownStream ? new StreamHandoff(device, commStream, modelStream) : null;
            // NCCL's CTAs each hold an SM for the whole all-reduce: beside backward, fewer of them leave backward more SMs.
            // The tail, which nothing runs beside, keeps the full communicator.
            this.beside = overlapCtas > 0 && overlap && !alone && comm instanceof NcclCommunicator n
                    ? n.withMaxCtas(overlapCtas) : comm;
        } catch (RuntimeException e) {
            if (to != null) to.close();
            if (from != null) from.close();
            throw e;
        }
        this.toComm = to;
        this.fromComm = from;
    }

    @Override
    public Communicator beside() {
        return beside;
    }

    @Override
    public void beforeAllReduce() {
        if (toComm != null) toComm.handOff();   // NCCL's stream waits for the model's, the host does not
        else plain.beforeAllReduce();
    }

    @Override
    public boolean allReduce(Bucket b, Communicator via) {
        // NCCL's call only queues the all-reduce, so with a timeline its time is two events on NCCL's stream.
        Timeline t = timeline;
        long stream = t != null && via instanceof NcclCommunicator n ? n.streamAddress() : 0;
        long start = stream != 0 ? t.markOn(stream) : -1;
        via.allReduce(b.buffer(), Reduction.AVG);
        if (start >= 0) t.allReducedOnGpu(b.bytes(), start, t.markOn(stream));
        if (via != comm) launchedBeside.incrementAndGet();
        return !recording;                      // a recorded call runs at every replay and is counted there
    }

    /** The buckets backward did not launch: through NCCL as one group (one launch), else one by one. */
    @Override
    public void launchTail(int count, Runnable launchEach) {
        // Not grouped while a timeline records the step: a group queues its all-reduces at its end, after the events.
        Timeline t = timeline;
        boolean timed = t != null && t.recordsThisStep();
        if (comm instanceof NcclCommunicator && count > 1 && !timed) NcclCommunicator.group(launchEach);
        else launchEach.run();
    }

    @Override
    public void afterAllReduces() {
        if (fromComm != null) {
            fromComm.handOff();                 // the model's stream waits for NCCL's: the optimizer sees the averages
        } else {
            if (beside != comm) beside.synchronize();
            plain.afterAllReduces();
        }
    }

    /** Whether NCCL runs on a stream of its own (then its calls can be recorded into the model stream's graphs). */
    boolean ownStream() {
        return fromComm != null;
    }

    /** Orders the model's stream after NCCL's: what the model does next sees the averaged gradients. */
    void rejoin() {
        fromComm.handOff();
    }

    void timeline(Timeline t) {
        this.timeline = t;
    }

    void recording(boolean on) {
        this.recording = on;
    }

    /** Calls made through the CTA-limited communicator, and its limit (0 when there is none). */
    long launchedBeside() {
        return launchedBeside.get();
    }

    int besideCtas() {
        return beside == comm ? 0 : ((NcclCommunicator) beside).options().maxCtas();
    }

    @Override
    public void close() {
        if (beside != comm) beside.close();
        if (toComm != null) toComm.close();
        if (fromComm != null) fromComm.close();
    }
}
