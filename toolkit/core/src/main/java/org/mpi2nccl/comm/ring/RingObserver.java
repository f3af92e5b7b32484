package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.Transport;

/**
 * What a hand-written collective ({@link RingAllReduce}, {@link NaiveAllReduce}, {@link ChainCollectives}) lets an
 * onlooker see, so that the algorithms themselves keep no records. When a collective begins, the observer may wrap
 * the transport to see every message; before each step the algorithm says which step it is and which segments it
 * sends and receives, so that the observer can label those messages.
 *
 * <p>{@link #NONE} sees nothing and costs nothing (the default of {@link RingCommunicator}); {@link RingTrace}
 * records every message for lesson 02's step chart.
 */
public interface RingObserver {

    /** Watches nothing: the transport is used as it is. */
    RingObserver NONE = new RingObserver() {
    };

    /** A collective begins; returns the transport the algorithm should use ({@code transport} itself, or a wrapper). */
    default Transport begin(CollectiveCall call, Transport transport) {
        return transport;
    }

    /**
     * The algorithm enters step {@code step} of {@code phase} ("reduce-scatter", "all-gather", "reduce",
     * "broadcast"): the messages it sends from now on carry segment {@code sendSegment}, those it receives
     * segment {@code recvSegment} (-1: none in that direction).
     */
    default void step(String phase, int step, int sendSegment, int recvSegment) {
    }
}
