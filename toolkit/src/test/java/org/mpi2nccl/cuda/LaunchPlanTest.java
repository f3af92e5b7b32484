package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
    void reductionPlansForTheBenchmarkShapes() {
        int sms = 132;
        long target = (long) sms * CudaReductions.BLOCKS_PER_SM_TARGET;
        // a full sum of 256 MiB: one row shared by enough blocks, then one block over their partials
        CudaReductions.Pass full = CudaReductions.plan(1, 64L << 20, 1, sms, true);
        assertEquals(CudaReductions.Shape.ROWS_BLOCK, full.shape());
        assertEquals(target, full.split(), "one block per target slot");
        assertEquals(target, full.items());
        CudaReductions.Pass second = CudaReductions.plan(1, full.split(), 1, sms, true);
        assertEquals(new CudaReductions.Pass(CudaReductions.Shape.ROWS_BLOCK, 1, full.split(), 1), second, "the partials: one block, one pass");
        // 65536 rows of 1024: a warp per row, no split
        assertEquals(new CudaReductions.Pass(CudaReductions.Shape.ROWS_WARP, 1, 1024, 65536), CudaReductions.plan(65536, 1024, 1, sms, true));
        // 1024 x 65536 column sums: 512 tiles of 128 columns, the 1024 rows cut into chunks until the GPU is full
        CudaReductions.Pass cols = CudaReductions.plan(1, 1024, 65536, sms, true);
        assertEquals(CudaReductions.Shape.COLUMNS, cols.shape());
        assertEquals(5, cols.split());
        assertEquals(205, cols.chunk());
        assertEquals(512 * 5, cols.items());
        assertEquals(1, CudaReductions.plan(1, cols.split(), 65536, sms, true).split(), "the partials: one pass");
        // columns that cannot be read as float4: tiles of 32
        assertEquals(CudaReductions.Shape.COLUMNS, CudaReductions.plan(1, 1024, 65537, sms, false).shape());
        assertEquals(2049, CudaReductions.plan(1, 64, 65537, sms, false).items(), "2049 tiles of 32 columns, too few rows to split");
    }

    @Test
    void reductionPlansCoverTheAxisAndEnd() {
        java.util.Random r = new java.util.Random(7);
        for (int trial = 0; trial < 20000; trial++) {
            long outer = 1 + (r.nextInt(4) == 0 ? r.nextInt(100000) : r.nextInt(8));
            long reduced = 1 + (long) Math.pow(2, r.nextDouble() * 26);
            long inner = r.nextInt(3) == 0 ? 1 + r.nextInt(70000) : 1;
            int sms = 1 + r.nextInt(200);
            boolean float4 = inner % 4 == 0 && r.nextBoolean();
            long axis = reduced;
            for (int passes = 1; ; passes++) {
                CudaReductions.Pass p = CudaReductions.plan(outer, axis, inner, sms, float4);
                String what = "plan(" + outer + ", " + axis + ", " + inner + ", " + sms + ") = " + p;
                assertTrue(p.split() >= 1 && p.chunk() >= 1 && p.items() >= 1, what);
                assertTrue(p.split() * p.chunk() >= axis && (p.split() - 1) * p.chunk() < axis, what + ": the pieces cover the axis, none empty");
                if (p.shape() == CudaReductions.Shape.COLUMNS) assertTrue(inner > 1, what);
                else assertEquals(1, inner, what);
                if (p.shape() == CudaReductions.Shape.ROWS_WARP) assertEquals(1, p.split(), what);
                if (p.split() == 1) break;
                assertTrue(p.split() < axis, what + ": the second pass is shorter");
                assertTrue(outer * p.split() * inner <= Math.max(outer * inner * 2, outer * axis * inner / 16), what + ": partials are small");
                assertTrue(passes < 3, what + ": at most three passes");
                axis = p.split();
            }
        }
    }

    /** The split rows that the backend finishes in one launch: {@value CudaReductions#SPLIT_ROW_BLOCKS_PER_SM} blocks per SM. */
    @Test
    void splitRowPlansInOneLaunch() {
        int sms = 132, perSm = CudaReductions.SPLIT_ROW_BLOCKS_PER_SM;
        CudaReductions.Pass p = CudaReductions.plan(1, 64L << 20, 1, sms, true, perSm);
        assertEquals(CudaReductions.Shape.ROWS_BLOCK, p.shape());
        assertEquals((long) sms * perSm, p.split(), "one part per block");
        assertTrue(ReductionScratch.fits(1, p.split()), "the one-pass scratch holds the partials");
        // 7 rows share the target: ceil(target / 7) parts each
        assertEquals(((long) sms * perSm + 6) / 7, CudaReductions.plan(7, 1L << 24, 1, sms, true, perSm).split());
        // columns do not depend on the rows' blocks per SM
        assertEquals(CudaReductions.plan(1, 1024, 65536, sms, true), CudaReductions.plan(1, 1024, 65536, sms, true, perSm));
    }

    /** Columns finished in one launch: chunks that fill whole waves of the kernel's resident blocks. */
    @Test
    void columnPlansFillWholeWaves() {
        int sms = 132;
        // 16 blocks per SM (the two-pass route): 5 chunks of 205 rows over 512 tiles
        assertEquals(CudaReductions.plan(1, 1024, 65536, sms, true), CudaReductions.planColumns(1, 1024, 65536, sms, true, 16, 0));
        // whole waves: 4 resident blocks per SM = 528 slots; 512 tiles already fill 97% of one wave: no split
        CudaReductions.Pass p = CudaReductions.planColumns(1, 1024, 65536, sms, true, 0, 4);
        assertEquals(1, p.split());
        assertEquals(512, p.items());
        // 3 per SM = 396 slots: 512 tiles alone would leave a 29% wave; 3 chunks of 342 rows make 1536 blocks = 97% of 4 waves
        p = CudaReductions.planColumns(1, 1024, 65536, sms, true, 0, 3);
        assertEquals(3, p.split());
        assertEquals(342, p.chunk());
        assertEquals(1536, p.items());
        // 8 per SM = 1056 slots: 2 chunks, 1024 blocks (97%)
        assertEquals(2, CudaReductions.planColumns(1, 1024, 65536, sms, true, 0, 8).split());
        // rows too few to cut (chunks of at least MIN_CHUNK_ROWS): one chunk whatever the fill
        assertEquals(1, CudaReductions.planColumns(1, 100, 256, sms, true, 0, 4).split());
        // many tiles (4 waves or more): no split
        assertEquals(1, CudaReductions.planColumns(64, 1024, 65536, sms, true, 0, 4).split());
        // a narrow matrix: 1 tile, chunks of >= 64 rows, at most 8 waves' worth
        p = CudaReductions.planColumns(1, 1_000_000, 128, sms, true, 0, 4);
        assertTrue(p.chunk() >= CudaReductions.MIN_CHUNK_ROWS, p.toString());
        assertTrue(p.items() <= 528 && p.items() >= 0.95 * 528, "one wave filled to 95%: " + p);
        // the one-pass scratch holds the partials of the benchmark's shape
        for (int resident : new int[] {2, 3, 4, 6, 8}) {
            CudaReductions.Pass q = CudaReductions.planColumns(1, 1024, 65536, sms, true, 0, resident);
            assertTrue(ReductionScratch.fitsColumns(1, 512, q.split(), 65536), q.toString());
        }
    }

    @Test
    void columnsReadAsFloat4OnlyWhenAligned() {
        assertTrue(CudaReductions.columnsAsFloat4(256, 8));
        assertFalse(CudaReductions.columnsAsFloat4(256, 6));
        assertFalse(CudaReductions.columnsAsFloat4(260, 8));
    }

    @Test
    void windowStructFromConvGeometry() {
        var g = new org.mpi2nccl.tensor.ConvGeometry(2, 3, 28, 28, 5, 5, 1, 2);
        assertArrayEquals(new long[] {2, 3, 28, 28, 5, 5, 1, 1, 2, 2, 28, 28}, CudaConvolutions.window(g));
    }
}
