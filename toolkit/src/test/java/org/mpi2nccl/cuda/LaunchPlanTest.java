package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.BinaryOp;
import org.mpi2nccl.tensor.UnaryOp;

/** The host-side arithmetic of kernel launches, checked without a GPU. */
class LaunchPlanTest {
    @Test
    void gridCoversEveryItemUpToTheCap() {
        assertEquals(1, CudaContext.gridBlocks(Kernel.Launch.PER_ELEMENT, 1, 132));
        assertEquals(4, CudaContext.gridBlocks(Kernel.Launch.PER_ELEMENT, 1000, 132));
        assertEquals(132 * 32, CudaContext.gridBlocks(Kernel.Launch.PER_ELEMENT, 1L << 40, 132), "capped; kernels loop grid-stride");
        assertEquals(7, CudaContext.gridBlocks(Kernel.Launch.PER_BLOCK, 7, 132));
        assertEquals(1, CudaContext.gridBlocks(Kernel.Launch.PER_WARP, 8, 132), "8 rows = 8 warps = one block of 256");
        assertEquals(2, CudaContext.gridBlocks(Kernel.Launch.PER_WARP, 9, 132));
    }

    @Test
    void aLaunchWithTheWrongArgumentsIsRefusedNamingTheKernel() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CudaContext.checkSignature(Kernel.FILL, KernelArgs.of().ptr(1).i64(3).f32(1f)));
        assertTrue(e.getMessage().contains("fill_f32") && e.getMessage().contains("(pfl)") && e.getMessage().contains("(plf)"), e.getMessage());
        CudaContext.checkSignature(Kernel.FILL, KernelArgs.of().ptr(1).f32(1f).i64(3));
    }

    @Test
    void everyContractOpHasItsKernels() {
        Set<String> names = new HashSet<>();
        for (Kernel k : Kernel.all()) assertTrue(names.add(k.module + ":" + k.name), "duplicate kernel " + k);
        for (BinaryOp op : BinaryOp.values()) {
            assertEquals("pppl", Kernel.binary(op).signature, op.name());
            assertEquals("pfpli", Kernel.binaryScalar(op).signature, op.name());
            assertEquals("pppllli", Kernel.binaryBroadcast(op).signature, op.name());
        }
        assertEquals(Kernel.binary(BinaryOp.SUB), Kernel.binary(BinaryOp.RSUB));
        assertEquals(Kernel.binary(BinaryOp.DIV), Kernel.binary(BinaryOp.RDIV));
        for (UnaryOp op : UnaryOp.values()) assertEquals("ppl", Kernel.unary(op).signature, op.name());
    }

    @Test
    void layoutPacksAsTheKernelStructAndKnowsItsReach() {
        Layout l = new Layout(new long[] {2, 3}, new long[] {1, 2}, 5);
        long[] p = l.toParam();
        assertEquals(18, p.length);
        assertEquals(2, p[0]);
        assertEquals(5, p[1]);
        assertEquals(2, p[2]);
        assertEquals(3, p[3]);
        assertEquals(1, p[10]);
        assertEquals(2, p[11]);
        assertArrayEquals(new long[] {5, 5 + 1 + 4}, l.offsetRange());
        assertArrayEquals(new long[] {0, 5}, Layout.contiguous(2, 3).offsetRange());
        assertArrayEquals(new long[] {7, 7}, new Layout(new long[] {4}, new long[] {0}, 7).offsetRange(), "broadcast");
        assertArrayEquals(new long[] {0, -1}, Layout.contiguous(0, 3).offsetRange(), "empty");
        assertArrayEquals(new long[] {1, 1}, new Layout(new long[0], new long[0], 1).offsetRange(), "0-d: one element");
        assertThrows(IllegalArgumentException.class, () -> Layout.contiguous(1, 1, 1, 1, 1, 1, 1, 1, 1));
    }

    @Test
    void longReductionsAreSplitOnlyWhenTheGpuWouldIdle() {
        assertEquals(1, Reduction.chunks(4096, 100, 1, 132), "many rows fill the GPU");
        long full = Reduction.chunks(1, 64L << 20, 1, 132);
        assertTrue(full > 1 && full <= (64L << 20) / Reduction.MIN_CHUNK, "one huge row is split, got " + full);
        assertEquals(1, Reduction.chunks(1, 100, 1, 132), "short rows are not split");
        long cols = Reduction.chunks(1, 1 << 20, 64, 132);
        assertTrue(cols > 1, "a column sum over a long axis is split, got " + cols);
    }

    @Test
    void windowStructFromConvGeometry() {
        var g = new org.mpi2nccl.tensor.ConvGeometry(2, 3, 28, 28, 5, 5, 1, 2);
        assertArrayEquals(new long[] {2, 3, 28, 28, 5, 5, 1, 1, 2, 2, 28, 28}, CudaBackend.window(g));
    }
}
