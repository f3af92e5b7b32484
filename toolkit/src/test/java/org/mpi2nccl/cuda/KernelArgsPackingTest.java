package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * How {@link KernelArgs} lays a launch's arguments out in native memory for JavaCPP's cuLaunchKernel
 * ({@link KernelParamBlock}): the pointer table, 8-byte slots, 16-byte aligned structs of the sizes native/ declares,
 * values read back from real (host) memory through JavaCPP. No GPU or CUDA library is needed: the block is plain
 * host memory; the GPU tests (CudaBackendContractTest, CudaGradientsTest, ...) launch every kernel through it.
 */
class KernelArgsPackingTest {
    private static final Layout LAYOUT = new Layout(new long[] {2, 3, 4}, new long[] {12, 1, 3}, 5);
    private static final long[] WINDOW = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

    @Test
    void structSizesMatchTheDocumentedOnes() {
        assertEquals(144, 8 * KernelArgs.LAYOUT_WORDS, "Layout");
        assertEquals(12, KernelArgs.WINDOW_WORDS, "Window2d");
        assertEquals(65, KernelArgs.SGD_WORDS, "SgdTensors");
        assertEquals(81, KernelArgs.ADAM_WORDS, "AdamTensors");
    }

    @Test
    void scalarsTakeOneSlotEachAndStructsStartOn16Bytes() {
        // i then L: the layout would start 8 bytes in without the padding
        KernelArgs a = KernelArgs.of().ptr(0x1000).i32(7).layout(LAYOUT).f32(1.5f).window(WINDOW).ptr(0x2000).sgdTensors(0, new long[0], new long[0], new long[0], new long[0]);
        assertEquals("piLfWpS", a.signature());
        assertEquals(8, a.tableWords(), "7 pointers rounded up to an even count");
        long[] offsets = new long[a.count()];
        for (int i = 0; i < a.count(); i++) offsets[i] = a.valueOffset(i);
        assertEquals(64, offsets[0]);                    // after the table
        assertEquals(72, offsets[1]);
        assertEquals(80, offsets[2], "the layout after one padding-free slot: 80 is 16-aligned");
        assertEquals(80 + 144, offsets[3]);
        assertEquals(80 + 144 + 8 + 8, offsets[4], "window: one pad slot after the float to reach 16 bytes");
        assertEquals(offsets[4] + 96, offsets[5]);
        assertEquals(offsets[5] + 8 + 8, offsets[6], "SgdTensors padded to 16 bytes after the pointer");
        assertEquals((offsets[6] + 8 * 65) / 8, a.packedWords(), "nothing after the last struct");
        for (int i = 0; i < a.count(); i++) {
            assertEquals(0, offsets[i] % 8, "slot " + i + " 8-byte aligned");
            if ("LWSA".indexOf(a.signature().charAt(i)) >= 0) assertEquals(0, offsets[i] % 16, "struct " + i + " 16-byte aligned");
        }
    }

    @Test
    void packedValuesReadBackFromNativeMemory() {
        long[] sizes = {10, 20, 30}, params = {0xA0, 0xA1, 0xA2}, grads = {0xB0, 0xB1, 0xB2}, moments1 = {0xC0, 0xC1, 0xC2}, moments2 = {0xD0, 0xD1, 0xD2};
        KernelArgs a = KernelArgs.of().ptr(0xdead_beef_0000L).i64(-3).u64(-1L).i32(-5).f32(-2.25f).layout(LAYOUT).window(WINDOW)
                .sgdTensors(3, sizes, params, grads, moments1).adamTensors(3, sizes, params, grads, moments1, moments2).i32(42);
        try (KernelParamBlock block = new KernelParamBlock()) {
            long table = block.write(a);
            assertEquals(block.address(), table);
            assertEquals(0, table % 16, "the block starts 16-byte aligned");
            for (int i = 0; i < a.count(); i++) {
                assertEquals(table + a.valueOffset(i), block.longAt(8L * i), "table entry " + i + " points at its value");
            }
            assertEquals(0xdead_beef_0000L, block.longAt(a.valueOffset(0)));
            assertEquals(-3, block.longAt(a.valueOffset(1)));
            assertEquals(-1L, block.longAt(a.valueOffset(2)));
            assertEquals(-5, block.intAt(a.valueOffset(3)), "an int in the first 4 bytes of its slot");
            assertEquals(-2.25f, block.floatAt(a.valueOffset(4)), "a float in the first 4 bytes of its slot");
            assertArrayEquals(LAYOUT.toParam(), read(block, a.valueOffset(5), KernelArgs.LAYOUT_WORDS), "Layout as Layout.toParam writes it");
            assertArrayEquals(WINDOW, read(block, a.valueOffset(6), 12), "Window2d");
            long[] sgd = read(block, a.valueOffset(7), KernelArgs.SGD_WORDS);
            assertEquals(3, sgd[0]);
            for (int k = 0; k < KernelArgs.SGD_TENSORS; k++) {
                boolean used = k < 3;
                assertEquals(used ? sizes[k] : 0, sgd[1 + k], "n[" + k + "]");
                assertEquals(used ? params[k] : 0, sgd[1 + 16 + k], "p[" + k + "]");
                assertEquals(used ? grads[k] : 0, sgd[1 + 32 + k], "grad[" + k + "]");
                assertEquals(used ? moments1[k] : 0, sgd[1 + 48 + k], "v[" + k + "]");
            }
            long[] adam = read(block, a.valueOffset(8), KernelArgs.ADAM_WORDS);
            assertEquals(3, adam[0]);
            assertEquals(0xD2, adam[1 + 64 + 2], "second moment of tensor 2");
            assertEquals(0, adam[1 + 64 + 3], "unused entry");
            assertEquals(42, block.intAt(a.valueOffset(9)));
        }
    }

    @Test
    void blockIsReusedAndGrowsForALargeLaunch() {
        try (KernelParamBlock block = new KernelParamBlock()) {
            long first = block.write(KernelArgs.of().ptr(1).f32(2f).i64(3));
            assertEquals(first, block.write(KernelArgs.of().ptr(4).f32(5f).i64(6)), "the same memory for the next launch");
            assertEquals(6, block.longAt(KernelArgs.of().ptr(4).f32(5f).i64(6).valueOffset(2)), "rewritten by the next launch");
            KernelArgs big = KernelArgs.of();
            long[] n = new long[KernelArgs.SGD_TENSORS];
            Arrays.fill(n, 9);
            for (int i = 0; i < 8; i++) big.adamTensors(KernelArgs.SGD_TENSORS, n, n, n, n, n).f32(i);
            assertTrue(big.packedWords() > KernelParamBlock.INITIAL_WORDS, "the case needs more than the first block");
            long table = block.write(big);
            assertTrue(block.capacityWords() >= big.packedWords(), "grown to " + block.capacityWords());
            assertEquals(0, table % 16);
            for (int i = 0; i < big.count(); i++) assertEquals(table + big.valueOffset(i), block.longAt(8L * i));
            assertEquals(7f, block.floatAt(big.valueOffset(15)));
            assertEquals(9, block.longAt(big.valueOffset(14) + 8 * 81 - 8), "last word of the last AdamTensors");
        }
    }

    @Test
    void closedBlockRefusesToPack() {
        KernelParamBlock block = new KernelParamBlock();
        block.close();
        block.close();   // twice is fine
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> block.write(KernelArgs.of().ptr(1)));
        assertTrue(e.getMessage().contains("after close"), e.getMessage());
    }

    @Test
    void signatureCheckNamesKernelAndBothSignatures() {
        KernelArgs right = KernelArgs.of().ptr(1).f32(0f).i64(1);
        assertTrue(right.signatureIs(Kernel.FILL.signature));
        CudaContext.checkSignature(Kernel.FILL, right);
        KernelArgs wrong = KernelArgs.of().ptr(1).i32(0).i64(1);
        assertFalse(wrong.signatureIs(Kernel.FILL.signature));
        assertFalse(KernelArgs.of().ptr(1).f32(0f).signatureIs("pfl"), "a prefix is not a match");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CudaContext.checkSignature(Kernel.FILL, wrong));
        assertTrue(e.getMessage().contains("fill_f32") && e.getMessage().contains("(pfl)") && e.getMessage().contains("(pil)"), e.getMessage());
    }

    @Test
    void argumentListsGrowPastTheirFirstArrays() {
        KernelArgs a = KernelArgs.of();
        for (int i = 0; i < 40; i++) a.i64(i);
        assertEquals(40, a.count());
        assertEquals("l".repeat(40), a.signature());
        for (int i = 0; i < 40; i++) assertEquals(i, a.word(i, 0));
    }

    @Test
    void badStructInputIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> KernelArgs.of().window(1, 2, 3));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> KernelArgs.of().sgdTensors(17, new long[17], new long[17], new long[17], new long[17]));
        assertTrue(e.getMessage().contains("0..16"), e.getMessage());
    }

    private static long[] read(KernelParamBlock block, long offset, int words) {
        long[] out = new long[words];
        for (int w = 0; w < words; w++) out[w] = block.longAt(offset + 8L * w);
        return out;
    }

    private static void assertArrayEquals(long[] want, long[] got, String what) {
        org.junit.jupiter.api.Assertions.assertArrayEquals(want, got, what);
    }
}
