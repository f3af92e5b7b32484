package org.mpi2nccl.parallel.timing;

/** {@link PhaseClock} on {@link System#nanoTime()}: exact for CPU work, which runs while the host waits. */
final class HostPhaseClock implements PhaseClock {
    private final long[] pending = new long[Phase.values().length];
    private long last;

    @Override
    public void stepStart() {
        last = System.nanoTime();
    }

    @Override
    public void phaseEnd(Phase phase) {
        long now = System.nanoTime();
        pending[phase.ordinal()] += now - last;
        last = now;
    }

    @Override
    public void drainInto(long[] nanos) {
        for (int i = 0; i < pending.length; i++) {
            nanos[i] += pending[i];
            pending[i] = 0;
        }
    }

    @Override
    public void close() {
    }
}
