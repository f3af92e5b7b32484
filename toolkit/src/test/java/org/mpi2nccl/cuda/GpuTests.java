package org.mpi2nccl.cuda;

import org.junit.jupiter.api.Assumptions;

/** Shared by the @Tag("gpu") tests: skip, saying so, where there is no GPU. */
public final class GpuTests {
    private GpuTests() {}

    /** Skips the calling test (or class, from @BeforeAll) with "no GPU: skipped" when no GPU can be used. */
    public static void requireGpu() {
        if (!Cuda.isAvailable()) {
            String message = "no GPU: skipped (" + Cuda.unavailableReason() + ")";
            System.out.println(message);
            Assumptions.assumeTrue(false, message);
        }
    }

    /** Relative-error check with the contract's rule: |e - a| <= rel * max(1, |e|); NaN matches NaN. */
    public static void assertClose(float[] expected, float[] actual, double rel, String what) {
        if (expected.length != actual.length) throw new AssertionError(what + ": length " + expected.length + " vs " + actual.length);
        for (int i = 0; i < expected.length; i++) {
            double e = expected[i], a = actual[i];
            if (Double.isNaN(e) && Double.isNaN(a)) continue;
            double tol = rel * Math.max(1.0, Math.abs(e));
            if (!(Math.abs(e - a) <= tol)) {
                throw new AssertionError(what + ": element " + i + " expected " + e + " but was " + a + " (tolerance " + tol + ")");
            }
        }
    }
}
