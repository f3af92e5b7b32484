package org.mpi2nccl.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The device address the host staging copies to and from reaches cudaMemcpy unchanged (no GPU needed). */
class HostStagingAddressTest {

    @Test
    void stagingPointersHoldTheDeviceAddress() {
        long a = 0x7f00_dead_b000L;
        assertEquals(a, HostStaging.address(a).address());
        assertEquals(0, HostStaging.address(a).position());
    }
}
