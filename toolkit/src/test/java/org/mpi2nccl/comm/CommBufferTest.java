package org.mpi2nccl.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Host and device buffers: slices within bounds, overlap and identity within one memory space only. */
class CommBufferTest {
    @Test
    void hostSlicesOverlapOnlyInTheSameArray() {
        float[] a = new float[10];
        HostBuffer all = HostBuffer.of(a);
        HostBuffer first = all.slice(0, 5);
        HostBuffer last = all.slice(5, 5);
        assertTrue(all.overlaps(first) && first.overlaps(all));
        assertFalse(first.overlaps(last), "adjacent slices do not overlap");
        assertTrue(all.slice(4, 2).overlaps(last));
        assertFalse(first.overlaps(HostBuffer.of(new float[10]).slice(0, 5)), "another array");
        assertFalse(first.overlaps(all.slice(3, 0)), "an empty slice overlaps nothing");
        assertTrue(first.sameAs(all.slice(0, 5)));
        assertFalse(first.sameAs(all.slice(0, 4)));
        assertFalse(first.sameAs(all.slice(1, 5)));
        assertEquals(5, last.offset());
    }

    @Test
    void deviceSlicesOverlapOnlyOnTheSameGpu() {
        DeviceBuffer all = DeviceBuffer.wrap(0x1000, 16, DataType.FLOAT64, 0);
        DeviceBuffer half = all.slice(8, 8);
        assertEquals(0x1000 + 8 * 8, half.address());
        assertTrue(all.overlaps(half));
        assertFalse(all.slice(0, 8).overlaps(half));
        assertFalse(half.overlaps(DeviceBuffer.wrap(half.address(), 8, DataType.FLOAT64, 1)), "another GPU");
        assertTrue(half.sameAs(DeviceBuffer.wrap(0x1040, 8, DataType.FLOAT64, 0)));
        assertFalse(half.sameAs(DeviceBuffer.wrap(0x1040, 16, DataType.FLOAT32, 0)), "same bytes, other type");
    }

    @Test
    void hostAndDeviceNeverOverlap() {
        HostBuffer h = HostBuffer.of(new long[4]);
        DeviceBuffer d = DeviceBuffer.wrap(0x10, 4, DataType.INT64, 0);
        assertFalse(h.overlaps(d) || d.overlaps(h) || h.sameAs(d) || d.sameAs(h));
    }

    @Test
    void slicesOutsideTheBufferAreRefused() {
        IndexOutOfBoundsException e = assertThrows(IndexOutOfBoundsException.class, () -> HostBuffer.of(new int[4]).slice(2, 3));
        assertEquals("slice [2, 5) of a buffer of 4 elements", e.getMessage());
        e = assertThrows(IndexOutOfBoundsException.class, () -> DeviceBuffer.wrap(0x10, 4, DataType.INT32, 0).slice(-1, 2));
        assertEquals("slice [-1, 1) of a device buffer of 4 elements", e.getMessage());
    }
}
