package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.Backends;
import org.mpi2nccl.tensor.Device;

/**
 * Without a GPU (this CI machine): everything says so plainly, the CPU is chosen, and asking for CUDA is a
 * clear error. On a GPU machine these are skipped (the GPU tests cover that side).
 */
class NoGpuTest {
    @BeforeAll
    static void onlyWithoutGpu() {
        if (Cuda.isAvailable()) {
            System.out.println("GPU present: the no-GPU path is not testable here: skipped");
            Assumptions.assumeFalse(true, "GPU present: the no-GPU path is not testable here");
        }
    }

    @Test
    void theReasonIsGivenAndAskingForAGpuIsAClearError() {
        assertEquals(0, Cuda.deviceCount());
        String reason = Cuda.unavailableReason();
        assertNotNull(reason);
        System.out.println("no GPU here, as expected: " + reason);
        CudaUnavailableException e = assertThrows(CudaUnavailableException.class, () -> Cuda.device(0));
        assertTrue(e.getMessage().contains("no GPU can be used") && e.getMessage().contains(reason)
                && e.getMessage().contains("CPU backend"), e.getMessage());
        // asking twice gives the same answer, not a NoClassDefFoundError from a half-initialized binding
        assertThrows(CudaUnavailableException.class, () -> Cuda.device(0));
    }

    @Test
    void theTensorLayerFallsBackToTheCpuAndRefusesCudaWithTheReason() {
        assertFalse(Backends.isAvailable(Device.cuda(0)));
        assertEquals(java.util.List.of(Device.cpu()), Backends.available());
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Device.cuda(0).backend());
        assertTrue(e.getMessage().contains("cuda:0") && e.getMessage().contains(Cuda.unavailableReason()), e.getMessage());
    }
}
