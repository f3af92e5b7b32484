package org.mpi2nccl.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Views, broadcasting, reductions, joins, error messages and lifetimes of {@link NDArray} (CPU). */
class NDArrayTest {

    private static NDArray range(int... shape) {
        int n = (int) Shapes.size(shape);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = i;
        return NDArray.of(v, shape);
    }

    @Test
    void viewsShareStorageAndCopyNothing() {
        NDArray a = range(2, 3, 4);
        NDArray p = a.permute(2, 0, 1);
        assertArrayEquals(new int[] {4, 2, 3}, p.shape());
        assertFalse(p.isCompact());
        assertEquals(a.storage(), p.storage());
        assertEquals(13f, p.select(0, 1).select(0, 1).select(0, 0).item()); // a[1, 0, 1]
        NDArray s = a.slice(2, 1, 4, 2);                                     // a[:, :, 1::2]
        assertArrayEquals(new float[] {1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23}, s.toArray());
        assertEquals(a.storage(), a.reshape(6, 4).storage());
        assertEquals(a.storage(), a.reshape(-1).storage());
        NDArray r = p.reshape(8, 3); // not contiguous: a copy
        assertTrue(r.storage() != a.storage());
        assertArrayEquals(p.toArray(), r.toArray());
        NDArray b = NDArray.of(new float[] {1, 2, 3}, 3, 1).broadcastTo(2, 3, 4);
        assertArrayEquals(new long[] {0, 1, 0}, b.strides());
        assertEquals(3f, b.select(1, 2).select(0, 1).select(0, 3).item());
    }

    @Test
    void anArrayOverAGivenStorageOwnsItAndChecksItsSize() {
        Storage st = Device.cpu().backend().allocate(6);
        NDArray a = NDArray.onStorage(st, 2, 3);
        assertTrue(a.isCompact());
        a.fill(2f);
        assertArrayEquals(new float[] {2, 2, 2, 2, 2, 2}, a.toArray());
        a.close();
        assertTrue(st.isClosed(), "the array owned the storage");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> NDArray.onStorage(Device.cpu().backend().allocate(5), 2, 3));
        assertTrue(e.getMessage().contains("5 elements cannot hold shape"), e.getMessage());
    }

    @Test
    void assignWritesThroughViews() {
        NDArray a = NDArray.zeros(Device.cpu(), 3, 4);
        a.slice(1, 1, 3).assign(NDArray.of(new float[] {7, 8}, 2));
        a.select(0, 2).fill(-1);
        assertArrayEquals(new float[] {0, 7, 8, 0, 0, 7, 8, 0, -1, -1, -1, -1}, a.toArray());
        NDArray sq = range(3, 3);
        sq.transpose().assign(sq); // source overlaps the destination: copied first
        assertArrayEquals(new float[] {0, 3, 6, 1, 4, 7, 2, 5, 8}, sq.toArray());
    }

    @Test
    void reductionsOverAnyAxes() {
        NDArray a = range(2, 3, 4);
        assertArrayEquals(new float[] {60, 66, 72, 78}, a.sum(0, 1).toArray());
        assertArrayEquals(new float[] {60, 92, 124}, a.sum(0, 2).toArray()); // non-contiguous axes
        assertArrayEquals(new int[] {1, 3, 1}, a.sumKeepDims(0, 2).shape());
        assertEquals(276f, a.sum().item());
        assertEquals(11.5f, a.mean().item());
        assertArrayEquals(new float[] {3, 3, 3, 3, 3, 3}, a.argmax(2).toArray());
        assertArrayEquals(new float[] {20, 21, 22, 23}, a.max(0, 1).toArray());
    }

    @Test
    void matmulUsesTransposedViewsAndBroadcastsBatches() {
        NDArray a = range(2, 3, 4), w = range(4, 5);
        NDArray y = a.matmul(w);
        assertArrayEquals(new int[] {2, 3, 5}, y.shape());
        float[] expect = new float[30];
        float[] av = a.toArray(), wv = w.toArray();
        for (int t = 0; t < 2; t++)
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 5; j++) {
                    float s = 0;
                    for (int k = 0; k < 4; k++) s += av[t * 12 + i * 4 + k] * wv[k * 5 + j];
                    expect[t * 15 + i * 5 + j] = s;
                }
        assertArrayEquals(expect, y.toArray());
        NDArray wt = range(5, 4).transpose(); // transposed view -> GEMM transB, no copy
        NDArray y2 = range(3, 4).matmul(wt);
        assertArrayEquals(range(3, 4).matmul(wt.copy()).toArray(), y2.toArray());
    }

    @Test
    void stackAndConcat() {
        NDArray a = range(2, 2), b = range(2, 2).add(10);
        assertArrayEquals(new float[] {0, 1, 10, 11, 2, 3, 12, 13}, NDArray.stack(1, a, b).toArray());
        assertArrayEquals(new int[] {2, 2, 2}, NDArray.stack(0, a, b).shape());
        NDArray c = NDArray.concat(1, a, range(2, 1));
        assertArrayEquals(new float[] {0, 1, 0, 2, 3, 1}, c.toArray());
    }

    @Test
    void errorsNameTheOpAndBothShapes() {
        NDArray a = range(2, 3), b = range(4);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> a.add(b));
        assertTrue(e.getMessage().contains("add") && e.getMessage().contains("(2, 3)") && e.getMessage().contains("(4,)"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> a.matmul(range(2, 3)));
        assertTrue(e.getMessage().startsWith("matmul: shapes (2, 3) and (2, 3)"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> a.reshape(4, 2));
        assertTrue(e.getMessage().contains("(2, 3)") && e.getMessage().contains("(4, 2)"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> NDArray.concat(0, a, b));
        assertTrue(e.getMessage().contains("concat"), e.getMessage());
    }

    @Test
    void scopesFreeTemporariesAndKeepWhatIsKept() {
        Backend cpu = Device.cpu().backend();
        long before = cpu.liveElements();
        NDArray kept;
        try (ArrayScope scope = ArrayScope.open()) {
            NDArray x = NDArray.ones(Device.cpu(), 100, 100);
            NDArray y = x.mul(3).add(1).exp();
            kept = ArrayScope.keep(y.sum());
            assertTrue(cpu.liveElements() > before + 20000);
            assertTrue(scope.tracked() >= 4);
        }
        assertEquals(before + 1, cpu.liveElements(), "only the kept scalar is still allocated");
        assertEquals(10000 * Math.exp(4), kept.item(), 10000 * Math.exp(4) * 1e-5);
        kept.close();
        assertEquals(before, cpu.liveElements());
        NDArray closed = NDArray.zeros(Device.cpu(), 2);
        closed.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, closed::toArray);
        assertTrue(e.getMessage().contains("already closed"), e.getMessage());
    }

    @Test
    void aDetachedScopeOutlivesTheScopeAroundIt() {
        Backend cpu = Device.cpu().backend();
        long before = cpu.liveElements();
        ArrayScope detached;
        NDArray inOuter;
        try (ArrayScope outer = ArrayScope.open()) {
            ArrayScope inner = ArrayScope.open();
            NDArray kept = NDArray.ones(Device.cpu(), 10);
            detached = inner.detach();
            inOuter = NDArray.zeros(Device.cpu(), 5);          // goes to the outer scope now
            assertEquals(1, detached.tracked());
            assertThrows(IllegalStateException.class, detached::detach, "a scope detaches once");
            assertEquals(15, cpu.liveElements() - before);
            assertFalse(kept.isClosed());
        }
        assertTrue(inOuter.isClosed(), "the outer scope closed its own array");
        assertEquals(10, cpu.liveElements() - before, "the detached scope's array survived the outer scope");
        detached.close();
        assertEquals(before, cpu.liveElements());
        try (ArrayScope outer = ArrayScope.open()) {
            try (ArrayScope inner = ArrayScope.open()) {
                IllegalStateException e = assertThrows(IllegalStateException.class, outer::detach);
                assertTrue(e.getMessage().contains("innermost"), e.getMessage());
            }
        }
    }

    @Test
    void viewsKeepTheStorageAliveUntilTheLastClose() {
        Backend cpu = Device.cpu().backend();
        long before = cpu.liveElements();
        NDArray a = NDArray.zeros(Device.cpu(), 50);
        NDArray v = a.slice(0, 10, 20);
        a.close();
        assertEquals(before + 50, cpu.liveElements());
        assertEquals(10, v.toArray().length);
        v.close();
        assertEquals(before, cpu.liveElements());
    }

    @Test
    void deviceParsingAndUnavailableBackends() {
        assertEquals(Device.cpu(), Device.parse("cpu"));
        assertEquals(Device.cuda(1), Device.parse("cuda:1"));
        assertEquals("cuda:0", Device.parse("cuda").toString());
        assertThrows(IllegalArgumentException.class, () -> Device.parse("tpu"));
        assertTrue(Backends.available().contains(Device.cpu()));
        if (!Backends.isAvailable(Device.cuda(0))) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Device.cuda(0).backend());
            assertTrue(e.getMessage().contains("cuda:0"), e.getMessage());
        }
    }

    @Test
    void coalescingMergesContiguousAndBroadcastAxes() {
        // (N, C, H, W) broadcast of a (1, C, 1, 1) channel vector: H and W merge for both views
        long[][] out = new long[2][];
        int[] s = Shapes.coalesce(new int[] {2, 3, 4, 5}, new long[][] {{0, 1, 0, 0}, {60, 20, 5, 1}}, out);
        assertArrayEquals(new int[] {2, 3, 20}, s);
        assertArrayEquals(new long[] {0, 1, 0}, out[0]);
        assertArrayEquals(new long[] {60, 20, 1}, out[1]);
        // a compact copy collapses to one axis; size-1 axes disappear; a scalar keeps one axis
        assertArrayEquals(new int[] {24}, Shapes.coalesce(new int[] {2, 1, 3, 4}, new long[][] {{12, 12, 4, 1}}, out));
        assertArrayEquals(new int[] {1}, Shapes.coalesce(new int[0], new long[][] {{}}, out));
        // a transposed view does not merge
        assertArrayEquals(new int[] {3, 2}, Shapes.coalesce(new int[] {3, 2}, new long[][] {{1, 3}, {2, 1}}, out));
    }
}
