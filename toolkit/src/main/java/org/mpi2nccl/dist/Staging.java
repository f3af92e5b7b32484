package org.mpi2nccl.dist;

import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.MpjCommunicator;
import org.mpi2nccl.comm.StagingTimes;

/** The phase times of a communicator's last host-staged collective on GPU memory, where it keeps them. */
final class Staging {
    private Staging() {}

    /** D2H / MPI / H2D times of {@code comm}'s last call on GPU buffers (MPI route), or null. */
    static StagingTimes of(Communicator comm) {
        return comm instanceof MpjCommunicator m ? m.lastStaging() : null;
    }
}
