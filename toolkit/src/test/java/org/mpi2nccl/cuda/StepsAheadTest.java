package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StepsAheadTest {
    @Test
    void defaultsToEightAndRejectsWhatIsNotAStepCount() {
        assertEquals(8, StepsAhead.parse(null));
        assertEquals(8, StepsAhead.parse(" "));
        assertEquals(3, StepsAhead.parse(" 3 "));
        for (String bad : new String[] {"0", "65", "-2", "many"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> StepsAhead.parse(bad));
            assertTrue(e.getMessage().contains("MPI2NCCL_STEPS_AHEAD=" + bad) && e.getMessage().contains("1 to 64"), e.getMessage());
        }
    }
}
