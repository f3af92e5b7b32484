package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** MPI2NCCL_SMEM_CARVEOUT: a percent from 0 to 100, or unset; anything else is refused with what is accepted. */
class KernelCarveoutTest {
    @Test
    void percentsAreTakenAndUnsetLeavesTheDriverToChoose() {
        assertEquals(-1, KernelModules.carveout(null));
        assertEquals(-1, KernelModules.carveout(" "));
        assertEquals(0, KernelModules.carveout("0"));
        assertEquals(100, KernelModules.carveout(" 100 "));
        assertEquals(25, KernelModules.carveout("25"));
    }

    @Test
    void anythingElseIsRefusedNamingTheVariable() {
        for (String bad : new String[] {"-1", "101", "max-l1", "25%"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KernelModules.carveout(bad));
            assertTrue(e.getMessage().startsWith("MPI2NCCL_SMEM_CARVEOUT=" + bad + ":") && e.getMessage().contains("from 0"),
                    e.getMessage());
        }
    }
}
