package org.mpi2nccl.tensor;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    private final BackendTestData data = new BackendTestData();
    protected final Random random = new Random(1234);

    /** The backend under test: the device's, unless a subclass wraps it. */
    protected Backend backendUnderTest() { return device().backend(); }

    @BeforeEach
    void openBackend() { backend = backendUnderTest(); }

    @AfterEach
    void freeAll() { data.freeAll(); }

    // ---- helpers --------------------------------------------------------------------------------------------

    protected Storage upload(float[] v) { return data.upload(backend, v); }

    protected Storage alloc(long n) { return data.alloc(backend, n); }

    protected float[] download(Storage s, int n) { return BackendTestData.download(backend, s, n); }

    protected float[] randoms(int n, float low, float high) { return BackendTestData.randoms(random, n, low, high); }

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
