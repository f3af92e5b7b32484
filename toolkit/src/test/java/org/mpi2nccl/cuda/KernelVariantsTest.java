package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Choosing kernel variants by name (MPI2NCCL_KERNEL_VARIANTS, bench-gpu --kernel-variants) and their launch plans; no GPU. */
class KernelVariantsTest {
    @AfterEach
    void restoreDefaults() {
        KernelVariants.use(KernelVariants.DEFAULT_TRANSPOSE);
        KernelVariants.use(KernelVariants.DEFAULT_FULL_REDUCTION);
        KernelVariants.use(KernelVariants.DEFAULT_COLUMN_REDUCTION);
    }

    @Test
    void chosenByName() {
        KernelVariants.use("transpose=128x64-v4, full-reduction=two-pass/16");
        assertEquals(TransposeVariant.TILE_128X64_V4, KernelVariants.transpose());
        assertEquals(FullReductionVariant.TWO_PASS_16, KernelVariants.fullReduction());
        assertEquals("transpose=128x64-v4, full-reduction=two-pass/16, column-reduction=" + KernelVariants.DEFAULT_COLUMN_REDUCTION.label,
                KernelVariants.describe());
        KernelVariants.use("column-reduction=one-pass-8loads/wave");
        assertEquals(ColumnReductionVariant.ONE_PASS_8LOADS_WAVE, KernelVariants.columnReduction());
        assertEquals(FullReductionVariant.TWO_PASS_16, KernelVariants.fullReduction(), "an unnamed family keeps its variant");
        KernelVariants.use("full-reduction=ONE_PASS_8LOADS_8");
        assertEquals(FullReductionVariant.ONE_PASS_8LOADS_8, KernelVariants.fullReduction());
        assertEquals(TransposeVariant.TILE_128X64_V4, KernelVariants.transpose(), "an unnamed family keeps its variant");
    }

    @Test
    void badNamesSayWhatIsValid() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KernelVariants.use("transpose=48x48"));
        assertTrue(e.getMessage().contains("64x64-v4"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> KernelVariants.use("softmax=fast"));
        assertTrue(e.getMessage().contains("transpose, full-reduction or column-reduction"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> KernelVariants.use("column-reduction=fast"));
        assertTrue(e.getMessage().contains("one-pass/wave"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> KernelVariants.use("64x64"));
        assertTrue(e.getMessage().contains("family=variant"), e.getMessage());
        assertEquals(KernelVariants.DEFAULT_TRANSPOSE, KernelVariants.transpose(), "a bad spec changes nothing before it");
    }

    @Test
    void everyVariantHasItsOwnKernelAndLabel() {
        Set<Kernel> kernels = new HashSet<>();
        Set<String> labels = new HashSet<>();
        for (TransposeVariant v : TransposeVariant.values()) {
            assertTrue(kernels.add(v.kernel), v + " shares a kernel");
            assertTrue(labels.add(v.label), v + " shares a label");
            assertTrue(Kernel.all().contains(v.kernel), v + ": kernel not registered");
            assertEquals(v, TransposeVariant.byName(v.label));
        }
        for (FullReductionVariant v : FullReductionVariant.values()) {
            assertTrue(labels.add(v.label), v + " shares a label");
            assertEquals(v, FullReductionVariant.byName(v.label));
        }
        Set<String> columnLabels = new HashSet<>();
        for (ColumnReductionVariant v : ColumnReductionVariant.values()) {
            assertTrue(columnLabels.add(v.label), v + " shares a label");
            assertEquals(v, ColumnReductionVariant.byName(v.name()));
        }
    }

    @Test
    void fullReductionPlansFollowTheVariant() {
        int sms = 132;
        for (FullReductionVariant v : FullReductionVariant.values()) {
            Reduction.Pass p = Reduction.plan(1, 64L << 20, 1, sms, true, v.blocksPerSm);
            assertEquals(Reduction.Shape.ROWS_BLOCK, p.shape(), v.label);
            assertEquals((long) sms * v.blocksPerSm, p.split(), v.label + ": one part per block");
            if (v.onePass) assertTrue(ReductionScratch.fits(1, p.split()), v.label + ": the one-pass scratch holds the partials");
            // 7 rows share the target: ceil(target / 7) parts each
            Reduction.Pass seven = Reduction.plan(7, 1L << 24, 1, sms, true, v.blocksPerSm);
            assertEquals(((long) sms * v.blocksPerSm + 6) / 7, seven.split(), v.label);
        }
        // columns do not depend on the row variant
        assertEquals(Reduction.plan(1, 1024, 65536, sms, true), Reduction.plan(1, 1024, 65536, sms, true, 4));
    }

    @Test
    void columnPlansFollowTheVariant() {
        int sms = 132;
        // 16 blocks per SM (two-pass/16 and one-pass/16): the first plan, 5 chunks of 205 rows over 512 tiles
        for (ColumnReductionVariant v : new ColumnReductionVariant[] {ColumnReductionVariant.TWO_PASS_16, ColumnReductionVariant.ONE_PASS_16}) {
            assertEquals(Reduction.plan(1, 1024, 65536, sms, true), Reduction.planColumns(1, 1024, 65536, sms, true, v.blocksPerSm, 0), v.label);
        }
        // whole waves: 4 resident blocks per SM = 528 slots; 512 tiles already fill 97% of one wave: no split
        Reduction.Pass p = Reduction.planColumns(1, 1024, 65536, sms, true, 0, 4);
        assertEquals(1, p.split());
        assertEquals(512, p.items());
        // 3 per SM = 396 slots: 512 tiles alone would leave a 29% wave; 3 chunks of 342 rows make 1536 blocks = 97% of 4 waves
        p = Reduction.planColumns(1, 1024, 65536, sms, true, 0, 3);
        assertEquals(3, p.split());
        assertEquals(342, p.chunk());
        assertEquals(1536, p.items());
        // 8 per SM = 1056 slots: 2 chunks, 1024 blocks (97%)
        assertEquals(2, Reduction.planColumns(1, 1024, 65536, sms, true, 0, 8).split());
        // rows too few to cut (chunks of at least MIN_CHUNK_ROWS): one chunk whatever the fill
        assertEquals(1, Reduction.planColumns(1, 100, 256, sms, true, 0, 4).split());
        // many tiles (4 waves or more): no split
        assertEquals(1, Reduction.planColumns(64, 1024, 65536, sms, true, 0, 4).split());
        // a narrow matrix: 1 tile, chunks of >= 64 rows, at most 8 waves' worth
        p = Reduction.planColumns(1, 1_000_000, 128, sms, true, 0, 4);
        assertTrue(p.chunk() >= Reduction.MIN_CHUNK_ROWS, p.toString());
        assertTrue(p.items() <= 528 && p.items() >= 0.95 * 528, "one wave filled to 95%: " + p);
        // the one-pass scratch holds the partials of the benchmark's shapes
        for (ColumnReductionVariant v : ColumnReductionVariant.values()) {
            for (int resident : new int[] {2, 3, 4, 6, 8}) {
                Reduction.Pass q = Reduction.planColumns(1, 1024, 65536, sms, true, v.blocksPerSm, resident);
                assertTrue(ReductionScratch.fitsColumns(1, 512, q.split(), 65536), v.label + " " + q);
            }
        }
    }

    @Test
    void doctorListsEveryKernelForTheSanitizerScript() {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream was = System.out;
        int rc;
        try {
            System.setOut(new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
            rc = new picocli.CommandLine(new org.mpi2nccl.cli.GpuDoctorCommand()).execute("--kernels");
        } finally {
            System.setOut(was);
        }
        assertEquals(0, rc);
        java.util.List<String> lines = bytes.toString(java.nio.charset.StandardCharsets.UTF_8).lines().toList();
        assertEquals(Kernel.all().size(), lines.size());
        for (Kernel k : Kernel.all()) {
            assertTrue(lines.contains(k + " " + k.signature + " " + k.launch), k + " missing from " + lines);
        }
    }
}
