package org.mpi2nccl.lab;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Grants from the lab file, CUDA_VISIBLE_DEVICES or the machine; leases that say who holds a taken GPU. */
class GpuLeaseTest {
    @Test
    void theLabFileGrantsEachUserTheirGpusAndADefault(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("lab.properties");
        Files.writeString(file, "gpus.alice = 0,1\ngpus.bob = 2-3\ngpus.* = 4\nlocks = " + dir.resolve("locks") + "\n");
        LabConfig lab = LabConfig.load(Map.of(LabConfig.FILE_ENV, file.toString(), "CUDA_VISIBLE_DEVICES", "7"));
        assertEquals(List.of("0", "1"), lab.grantFor("alice", 8).gpus());
        assertEquals(List.of("2", "3"), lab.grantFor("bob", 8).gpus());
        assertEquals(List.of("4"), lab.grantFor("carol", 8).gpus(), "the default, not CUDA_VISIBLE_DEVICES");
        assertEquals(dir.resolve("locks"), lab.lockFolder());
    }

    @Test
    void withoutALabFileCudaVisibleDevicesOrTheWholeMachine(@TempDir Path dir) {
        LabConfig lab = LabConfig.load(Map.of("CUDA_VISIBLE_DEVICES", "GPU-1a2b,3"));
        assertEquals(List.of("GPU-1a2b", "3"), lab.grantFor("alice", 4).gpus());
        assertEquals(List.of("0", "1"), LabConfig.load(Map.of()).grantFor("alice", 2).gpus());
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> LabConfig.load(Map.of(LabConfig.FILE_ENV, dir.resolve("missing").toString())));
        assertTrue(e.getMessage().contains("cannot be read"), e.getMessage());
    }

    @Test
    void aTakenGpuIsRefusedWithItsHolderAndFreedOnClose(@TempDir Path locks) {
        LabConfig.Grant alice = new LabConfig.Grant(List.of("0", "1"), "test");
        LabConfig.Grant bob = new LabConfig.Grant(List.of("1", "2"), "test");
        try (GpuLease a = GpuLease.acquire("alice", alice, 2, locks)) {
            assertEquals(Map.of("CUDA_VISIBLE_DEVICES", "0,1"), a.environment());
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> GpuLease.acquire("bob", bob, 2, locks));
            assertTrue(e.getMessage().contains("GPU 1 is used by alice (pid " + ProcessHandle.current().pid()), e.getMessage());
            try (GpuLease b = GpuLease.acquire("bob", bob, 1, locks)) {
                assertEquals(List.of("2"), b.gpus(), "one rank: the free GPU of bob's grant");
            }
        }
        try (GpuLease b = GpuLease.acquire("bob", bob, 2, locks)) {
            assertEquals(List.of("1", "2"), b.gpus(), "alice's GPUs went back when her lease closed");
        }
    }

    @Test
    void noGrantNoGpu(@TempDir Path locks) {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> GpuLease.acquire("dave", new LabConfig.Grant(List.of(), "the lab file"), 2, locks));
        assertTrue(e.getMessage().contains("no GPU is granted to dave"), e.getMessage());
    }
}
