package org.mpi2nccl.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.mpj.MpjCommunicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.StagingTimes;

/**
 * The one bandwidth harness, for every communicator and collective, in nccl-tests' form. For each size and
 * placement (out of place, in place): fill the inputs, run the warm-up calls, agree on the number of timed
 * calls (fewer for slow communicators), time them between two barriers, take the slowest rank's time per
 * call, compute algbw and busbw ({@link BusBandwidth}), then refill, run once more and count the wrong
 * elements of the result on every rank.
 *
 * <p>Every rank runs {@link #run}; all get the same rows. {@code control} is a host communicator used for the
 * barriers and to agree on numbers (for NCCL: the MPJ communicator that bootstrapped it; for a host
 * communicator: itself).
 */
public final class BandwidthHarness {
    private final Communicator measured;
    private final Communicator control;
    private final String label;
    private final BenchMemory memory;

    /**
     * @param label  the communicator's name in tables and plots ("nccl", "mpj-staged", ...)
     * @param memory where the buffers live (host arrays, or the rank's GPU)
     */
    public BandwidthHarness(Communicator measured, Communicator control, String label, BenchMemory memory) {
        if (measured.size() != control.size() || measured.rank() != control.rank()) {
            throw new IllegalArgumentException("bench: the control communicator must have the same ranks as the measured one");
        }
        this.measured = measured;
        this.control = control;
        this.label = label;
        this.memory = memory;
    }

    /** Measures every size of {@code spec}; {@code progress} gets each row as it is done. */
    public List<BenchRow> run(BenchSpec spec, Consumer<BenchRow> progress) {
        List<BenchRow> rows = new ArrayList<>();
        int n = measured.size();
        for (long bytes : spec.sizes()) {
            long elems = bytes / spec.type().bytes();
            boolean perRankBlocks = spec.collective() == Collective.ALL_GATHER || spec.collective() == Collective.REDUCE_SCATTER;
            long count = perRankBlocks ? elems / n : elems;
            if (count < 1) {
                continue;                    // too small to give every rank an element
            }
            long sizeBytes = (perRankBlocks ? count * n : count) * spec.type().bytes();
            if (spec.outOfPlace()) {
                rows.add(emit(measure(spec, count, sizeBytes, false), progress));
            }
            if (spec.inPlace() && BenchCase.hasInPlace(spec.collective())) {
                rows.add(emit(measure(spec, count, sizeBytes, true), progress));
            }
        }
        return rows;
    }

    private static BenchRow emit(BenchRow r, Consumer<BenchRow> progress) {
        if (progress != null) {
            progress.accept(r);
        }
        return r;
    }

    private BenchRow measure(BenchSpec spec, long count, long sizeBytes, boolean inPlace) {
        int n = measured.size();
        try (BenchMemory mem = memory.fresh()) {
            BenchCase c = new BenchCase(spec.collective(), spec.type(), spec.op(), spec.root(), measured.rank(), n, count,
                    inPlace, mem);
            c.fill();
            // warm-up, timed as a first estimate of the time per call
            control.barrier();
            int warm = Math.max(1, spec.warmup());
            long w0 = System.nanoTime();
            for (int i = 0; i < warm; i++) {
                c.run(measured);
            }
            measured.synchronize();
            double estimate = slowest((System.nanoTime() - w0) / 1e9 / warm);
            int iters = (int) Math.max(spec.minIters(), Math.min(spec.iters(), Math.floor(spec.secondsPerSize() / Math.max(estimate, 1e-9))));

            StagingSum staging = new StagingSum();
            control.barrier();
            alignStart();
            long t0 = System.nanoTime();
            for (int i = 0; i < iters; i++) {
                c.run(measured);
                staging.add(measured);
            }
            measured.synchronize();
            double seconds = slowest((System.nanoTime() - t0) / 1e9 / iters);

            long wrong = -1;
            if (spec.check()) {
                c.fill();
                control.barrier();
                c.run(measured);
                measured.synchronize();
                wrong = total(c.countWrong());
            }
            return new BenchRow(label, spec.collective().label(), n, spec.type().label(), spec.op().label(), spec.root(),
                    sizeBytes, count, inPlace ? "in-place" : "out-of-place", iters, seconds * 1e6,
                    BusBandwidth.algbw(sizeBytes, seconds), BusBandwidth.busbw(spec.collective(), n, sizeBytes, seconds),
                    wrong, staging.d2hUs(iters), staging.collUs(iters), staging.h2dUs(iters));
        }
    }

    /**
     * Lines the ranks up right before the timed calls through the measured communicator itself, as nccl-tests and
     * torch.distributed do: for NCCL a barrier on the GPUs (an all-reduce waited for), whose ranks leave it within
     * microseconds; the host barrier before it (MPJ over TCP) releases them up to a few hundred microseconds apart,
     * which would count into the slowest rank's time of the small, fast sizes.
     */
    private void alignStart() {
        if (measured != control) {
            measured.barrier();
            measured.synchronize();
        }
    }

    /** The largest value over ranks (the slowest rank decides when a collective is done). */
    private double slowest(double mine) {
        double[] v = {mine};
        control.allReduce(HostBuffer.of(v), Reduction.MAX);
        return v[0];
    }

    private long total(long mine) {
        long[] v = {mine};
        control.allReduce(HostBuffer.of(v), Reduction.SUM);
        return v[0];
    }

    /** Sums the host-staging phase times of an MPJ communicator on GPU buffers. */
    private static final class StagingSum {
        long d2h;
        long coll;
        long h2d;
        boolean any;

        void add(Communicator c) {
            if (c instanceof MpjCommunicator m) {
                StagingTimes t = m.lastStaging();
                if (t != null) {
                    any = true;
                    d2h += t.deviceToHostNanos();
                    coll += t.collectiveNanos();
                    h2d += t.hostToDeviceNanos();
                }
            }
        }

        double d2hUs(int iters) {
            return any ? d2h / 1e3 / iters : Double.NaN;
        }

        double collUs(int iters) {
            return any ? coll / 1e3 / iters : Double.NaN;
        }

        double h2dUs(int iters) {
            return any ? h2d / 1e3 / iters : Double.NaN;
        }
    }
}
