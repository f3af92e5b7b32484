package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The cuBLAS workspace size PyTorch would give the same GPU (so the GEMM benchmark compares like with like); no GPU. */
class CublasWorkspaceTest {
    @Test
    void pytorchDefaults() {
        assertEquals(32L << 20, Cublas.workspaceBytes(9, null), "Hopper: 4096 KiB x 8");
        assertEquals(32L << 20, Cublas.workspaceBytes(10, null), "Blackwell too");
        assertEquals(4096L * 1024 * 2 + 16L * 1024 * 8, Cublas.workspaceBytes(8, null), "Ampere: 4096 KiB x 2 + 16 KiB x 8");
    }

    @Test
    void cublasWorkspaceConfigOverrides() {
        assertEquals(4096L * 1024 * 8, Cublas.workspaceBytes(8, ":4096:8"));
        assertEquals(16L * 1024 * 8, Cublas.workspaceBytes(9, ":16:8"), "the deterministic setting PyTorch documents");
        assertEquals(4096L * 1024 * 2 + 16L * 1024 * 8, Cublas.workspaceBytes(9, ":4096:2:16:8"));
        assertEquals(32L << 20, Cublas.workspaceBytes(9, "nonsense"), "unparsable: the default, as PyTorch does");
    }
}
