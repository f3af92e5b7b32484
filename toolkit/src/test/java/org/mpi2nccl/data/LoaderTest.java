package org.mpi2nccl.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.Device;

/** Samplers, the data loader and the synthetic data set. */
class LoaderTest {

    private static ArrayDataset numbered(int n) {
        float[] x = new float[n * 2];
        int[] y = new int[n];
        for (int i = 0; i < n; i++) {
            x[2 * i] = i;
            x[2 * i + 1] = -i;
            y[i] = i % 3;
        }
        return new ArrayDataset(x, y, new int[] {2}, 3);
    }

    @Test
    void randomSamplerIsAPermutationFixedBySeedAndEpoch() {
        int[] a = new RandomSampler(100, 5).indices(0), b = new RandomSampler(100, 5).indices(0);
        int[] c = new RandomSampler(100, 5).indices(1), d = new RandomSampler(100, 6).indices(0);
        assertArrayEquals(a, b);
        assertFalse(Arrays.equals(a, c));
        assertFalse(Arrays.equals(a, d));
        int[] sorted = a.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < 100; i++) assertEquals(i, sorted[i]);
    }

    @Test
    void loaderBatchesWithAndWithoutDropLast() {
        ArrayDataset ds = numbered(10);
        DataLoader keep = new DataLoader(ds, 4, false, 0, false, Device.cpu());
        assertEquals(3, keep.batchesPerEpoch());
        List<Integer> sizes = new ArrayList<>();
        float[] firstX = null, lastY = null;
        for (Batch b : keep.epoch(0)) {
            try (b) {
                sizes.add(b.size());
                if (firstX == null) firstX = b.x().toArray();
                lastY = b.y().toArray();
                assertEquals(2, b.x().shape(1));
            }
        }
        assertEquals(List.of(4, 4, 2), sizes);
        assertArrayEquals(new float[] {0, 0, 1, -1, 2, -2, 3, -3}, firstX);
        assertArrayEquals(new float[] {8 % 3, 9 % 3}, lastY);

        DataLoader drop = new DataLoader(ds, 4, true, 3, true, Device.cpu());
        assertEquals(2, drop.batchesPerEpoch());
        int seen = 0;
        for (Batch b : drop.epoch(2)) {
            try (b) {
                seen += b.size();
                float[] x = b.x().toArray(), y = b.y().toArray();
                for (int i = 0; i < b.size(); i++) assertEquals(((int) x[2 * i]) % 3, (int) y[i], "labels travel with their features");
            }
        }
        assertEquals(8, seen);
        assertThrows(IllegalArgumentException.class, () -> new DataLoader(ds, 0, false, 0, false, Device.cpu()));
    }

    @Test
    void prefetchingGivesTheSameBatchesGatheredOnAnotherThread() {
        ArrayDataset plain = numbered(23);
        java.util.Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Dataset watched = new Dataset() {
            public int size() { return plain.size(); }
            public int[] featureShape() { return plain.featureShape(); }
            public int numClasses() { return plain.numClasses(); }
            public void features(int i, float[] dst, int off) { threads.add(Thread.currentThread().getName()); plain.features(i, dst, off); }
            public int label(int i) { return plain.label(i); }
        };
        DataLoader serial = new DataLoader(plain, 5, true, 9, false, Device.cpu());
        for (int depth : new int[] {1, 3, 10}) {
            DataLoader ahead = new DataLoader(watched, 5, true, 9, false, Device.cpu()).withPrefetch(depth);
            assertEquals(depth, ahead.prefetch());
            List<float[]> want = new ArrayList<>(), got = new ArrayList<>();
            // two epochs each: the second one's batches are gathered into the first one's buffers (handed back after upload)
            for (int e = 4; e <= 5; e++) for (Batch b : serial.epoch(e)) try (b) { want.add(b.x().toArray()); want.add(b.y().toArray()); }
            for (int e = 4; e <= 5; e++) for (Batch b : ahead.epoch(e)) try (b) { got.add(b.x().toArray()); got.add(b.y().toArray()); }
            assertEquals(want.size(), got.size(), "prefetch " + depth + ": number of batches");
            java.util.Set<Float> seen = new java.util.HashSet<>();
            for (int i = 0; i < got.size(); i += 2) {          // every row is an example of its own: (k, -k), label k % 3
                float[] x = got.get(i), y = got.get(i + 1);
                for (int r = 0; r < y.length; r++) {
                    assertEquals(-x[2 * r], x[2 * r + 1], 0f, "prefetch " + depth + ": a row mixes two examples");
                    assertEquals(x[2 * r] % 3, y[r], 0f, "prefetch " + depth + ": a label from another example");
                    seen.add(x[2 * r]);
                }
            }
            assertEquals(plain.size(), seen.size(), "prefetch " + depth + ": every example in the two epochs");
            for (int i = 0; i < want.size(); i++) assertArrayEquals(want.get(i), got.get(i), "prefetch " + depth + ", array " + i);
        }
        assertTrue(threads.stream().allMatch(t -> t.startsWith("data-loader-prefetch-")), "gathered on " + threads);
        assertThrows(IllegalArgumentException.class, () -> serial.withPrefetch(-1));
    }

    @Test
    void aFailingGatherOnThePrefetchThreadReachesTheCallerWithItsMessage() {
        ArrayDataset plain = numbered(12);
        Dataset broken = new Dataset() {
            public int size() { return plain.size(); }
            public int[] featureShape() { return plain.featureShape(); }
            public int numClasses() { return plain.numClasses(); }
            public void features(int i, float[] dst, int off) {
                if (i == 7) throw new IllegalStateException("example 7 is unreadable");
                plain.features(i, dst, off);
            }
            public int label(int i) { return plain.label(i); }
        };
        DataLoader ahead = new DataLoader(broken, 4, false, 0, false, Device.cpu()).withPrefetch(2);
        Iterator<Batch> it = ahead.epoch(0).iterator();
        it.next().close();
        IllegalStateException e = assertThrows(IllegalStateException.class, it::next);
        assertEquals("example 7 is unreadable", e.getMessage());
    }

    @Test
    void syntheticDataIsDeterministicAndLabelledByATeacher() {
        SyntheticDataset a = new SyntheticDataset(50, new int[] {3, 4, 4}, 5, 11), b = new SyntheticDataset(50, new int[] {3, 4, 4}, 5, 11);
        float[] xa = new float[48], xb = new float[48];
        a.features(17, xa, 0);
        b.features(17, xb, 0);
        assertArrayEquals(xa, xb);
        int[] counts = new int[5];
        for (int i = 0; i < 50; i++) {
            assertEquals(a.label(i), b.label(i));
            counts[a.label(i)]++;
        }
        for (int c : counts) assertTrue(c > 0, "every class occurs: " + Arrays.toString(counts));
        assertThrows(IndexOutOfBoundsException.class, () -> a.label(50));
    }
}
