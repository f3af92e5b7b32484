package org.mpi2nccl.tensor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every part of the {@link Backend} contract tests shares: the backend under test, fresh inputs from a
 * seeded generator (a new one per test), storages freed after each test, and the contract's tolerance check.
 * The tests themselves are split by topic over a chain of abstract classes, {@link TrainingLayerContractTest},
 * {@link OptimizerStepContractTest}, {@link BackendContractTest}, so that a backend's one test class (which
 * extends BackendContractTest) runs them all.
 */
public abstract class BackendContractFixture {

    /** The device whose backend is under test. */
    protected abstract Device device();

    protected Backend backend;
    private final List<Storage> allocated = new ArrayList<>();
    protected final Random random = new Random(1234);

    /** The backend under test: the device's, unless a subclass wraps it. */
    protected Backend backendUnderTest() { return device().backend(); }

    @BeforeEach
    void openBackend() { backend = backendUnderTest(); }

    @AfterEach
    void freeAll() {
        for (Storage s : allocated) s.close();
        allocated.clear();
    }

    // ---- helpers --------------------------------------------------------------------------------------------

    protected Storage upload(float[] v) {
        Storage s = backend.allocate(v.length);
        allocated.add(s);
        backend.copyFromHost(v, 0, s, 0, v.length);
        return s;
    }

    protected Storage alloc(long n) {
        Storage s = backend.allocate(n);
        allocated.add(s);
        return s;
    }

    protected float[] download(Storage s, int n) {
        float[] v = new float[n];
        backend.copyToHost(s, 0, v, 0, n);
        return v;
    }

    protected float[] randoms(int n, float low, float high) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = low + (high - low) * random.nextFloat();
        return v;
    }

    protected static void assertClose(float[] expected, float[] actual, double rel, String what) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            double e = expected[i], a = actual[i];
            if (Double.isNaN(e) && Double.isNaN(a)) continue;
            double tol = rel * Math.max(1.0, Math.abs(e));
            if (!(Math.abs(e - a) <= tol))
                throw new AssertionError(what + ": element " + i + " expected " + e + " but was " + a + " (tolerance " + tol + ")");
        }
    }
}
