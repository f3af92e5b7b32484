package org.mpi2nccl.tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The data of backend tests, so that each test says only what it checks: random host arrays from the test's own
 * seeded generator, and storages on any backend, uploaded from host arrays or just allocated, all freed together
 * after each test ({@link #freeAll}).
 */
public final class BackendTestData {
    private final List<Storage> allocated = new ArrayList<>();

    /** A storage of {@code backend} holding a copy of {@code v}; freed by {@link #freeAll}. */
    public Storage upload(Backend backend, float[] v) {
        Storage s = alloc(backend, v.length);
        backend.copyFromHost(v, 0, s, 0, v.length);
        return s;
    }

    /** A storage of {@code n} floats on {@code backend}; freed by {@link #freeAll}. */
    public Storage alloc(Backend backend, long n) {
        Storage s = backend.allocate(n);
        allocated.add(s);
        return s;
    }

    /** Frees every storage made since the last call (run it after each test). */
    public void freeAll() {
        allocated.forEach(Storage::close);
        allocated.clear();
    }

    /** The first {@code n} floats of {@code s}, copied to the host. */
    public static float[] download(Backend backend, Storage s, int n) {
        float[] v = new float[n];
        backend.copyToHost(s, 0, v, 0, n);
        return v;
    }

    /** {@code n} floats drawn uniformly from [low, high) by {@code random}. */
    public static float[] randoms(Random random, int n, float low, float high) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = low + (high - low) * random.nextFloat();
        return v;
    }

    /** The number of elements of an array of this shape, as an int (test arrays are small). */
    public static int size(int... shape) {
        return Math.toIntExact(Shapes.size(shape));
    }
}
