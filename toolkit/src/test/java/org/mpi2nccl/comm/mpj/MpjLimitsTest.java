package org.mpi2nccl.comm.mpj;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.CommException;

/** A point-to-point message MPJ Express could not buffer is refused before MPJ sees it, with what to do instead. */
class MpjLimitsTest {
    @Test
    void aMessageOverTheLimitIsRefusedWithWhatToDo() {
        assertDoesNotThrow(() -> MpjLimits.checkMessage(0, "the message to rank 1 (tag 2)", 192L << 20));
        CommException e = assertThrows(CommException.class,
                () -> MpjLimits.checkMessage(1, "the message to rank 0 (tag 2)", 256L << 20));
        String m = e.getMessage();
        assertTrue(m.startsWith("rank 1: the message to rank 0 (tag 2) is 256 MiB, over the 192 MiB") && m.contains("smaller parts")
                && m.contains("mpi route") && m.contains("(shm)"), m);
    }
}
