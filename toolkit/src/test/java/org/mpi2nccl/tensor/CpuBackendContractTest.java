package org.mpi2nccl.tensor;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The backend contract on the CPU, plus what only the CPU promises (immediate label errors, its BLAS). */
class CpuBackendContractTest extends BackendContractTest {

    @Override
    protected Device device() { return Device.cpu(); }

    @Test
    void badLabelIsNamedImmediately() {
        Storage labels = upload(new float[] {0, 3});
        Storage out = alloc(6);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> backend.oneHot(labels, out, 2, 3));
        assertTrue(e.getMessage().contains("label 3.0 at position 1"), e.getMessage());
    }

    @Test
    void crossEntropyNamesABadLabelImmediately() {
        Storage logits = upload(new float[] {1, 2, 3, 4, 5, 6}), labels = upload(new float[] {0, 3}), loss = alloc(1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> backend.softmaxCrossEntropy(logits, labels, loss, 2, 3));
        assertTrue(e.getMessage().contains("label 3.0 at position 1") && e.getMessage().contains("not a class in [0, 3)"), e.getMessage());
    }

    @Test
    void describesItsBlas() {
        String d = backend.describe();
        System.out.println("CPU backend: " + d);
        assertTrue(d.contains("GEMM"), d);
    }
}
