package org.mpi2nccl.comm.shm;

import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;

import java.io.IOException;
import java.net.InetAddress;

/** Whether the ranks of a communicator run on one machine (where {@link ShmTransport} can connect them). */
public final class SameHost {
    private SameHost() {
    }

    /** Whether every rank of {@code c} runs on this machine (collective: every rank must call it). */
    public static boolean all(Communicator c) {
        return rankOnAnotherHost(c) < 0;
    }

    /** A rank whose host name differs from this rank's, or -1 (collective). */
    static int rankOnAnotherHost(Communicator c) {
        long[] mine = {name().hashCode()};
        long[] all = new long[c.size()];
        c.allGather(HostBuffer.of(mine), HostBuffer.of(all));
        for (int r = 0; r < all.length; r++) {
            if (all[r] != mine[0]) {
                return r;
            }
        }
        return -1;
    }

    /** This machine's host name ("?" if it has none). */
    public static String name() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "?";
        }
    }
}
