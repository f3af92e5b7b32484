package org.mpi2nccl.autograd;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/** Small exact examples of the graph machinery: accumulation, no-grad, detach, errors, memory. */
class AutogradTest {

    private static Tensor param(float... v) { return Tensor.parameter(NDArray.of(v, v.length)); }

    @Test
    void exactGradientsOfASmallExpression() {
        Tensor x = param(1, 2, 3);
        Tensor w = param(0.5f, -1, 2);
        // L = sum(w * x^2) + sum(x)  ->  dL/dx = 2 w x + 1, dL/dw = x^2
        Tensor loss = w.mul(x.pow(2f)).sum().add(x.sum());
        assertEquals(0.5f - 4 + 18 + 6, loss.item(), 1e-6);
        loss.backward();
        assertArrayEquals(new float[] {2, -3, 13}, x.grad().toArray(), 1e-6f);
        assertArrayEquals(new float[] {1, 4, 9}, w.grad().toArray(), 1e-6f);
    }

    @Test
    void gradientsAccumulateUntilZeroed() {
        Tensor x = param(1, 2);
        x.mul(3f).sum().backward();
        x.mul(3f).sum().backward();
        assertArrayEquals(new float[] {6, 6}, x.grad().toArray());
        NDArray buffer = x.grad();
        x.zeroGrad();
        assertArrayEquals(new float[] {0, 0}, x.grad().toArray());
        x.mul(2f).sum().backward();
        assertTrue(buffer == x.grad(), "the gradient buffer is kept (all-reduce buckets and optimizers hold it)");
        assertArrayEquals(new float[] {2, 2}, x.grad().toArray());
    }

    @Test
    void softmaxCrossEntropyExactValue() {
        Tensor logits = Tensor.parameter(NDArray.of(new float[] {1, 2, 3, 0, 0, 0}, 2, 3));
        NDArray labels = NDArray.of(new float[] {2, 0}, 2);
        Tensor loss = Functions.softmaxCrossEntropy(logits, labels);
        double l0 = Math.log(Math.exp(1) + Math.exp(2) + Math.exp(3)) - 3, l1 = Math.log(3);
        assertEquals((l0 + l1) / 2, loss.item(), 1e-6);
        loss.backward();
        float[] g = logits.grad().toArray();
        double z = Math.exp(1) + Math.exp(2) + Math.exp(3);
        assertEquals((Math.exp(3) / z - 1) / 2, g[2], 1e-6);
        assertEquals((1.0 / 3 - 1) / 2, g[3], 1e-6);
    }

    @Test
    void noGradAndDetachRecordNothing() {
        Tensor x = param(1, 2);
        try (GradMode.Off off = GradMode.off()) {
            Tensor y = x.mul(2f);
            assertFalse(y.requiresGrad());
            assertTrue(y.isLeaf());
        }
        assertTrue(GradMode.isEnabled());
        Tensor d = x.mul(2f).detach();
        assertFalse(d.requiresGrad());
        Tensor z = d.mul(x).sum();   // gradient reaches x only through the non-detached path
        z.backward();
        assertArrayEquals(new float[] {2, 4}, x.grad().toArray());
        Tensor c = Tensor.constant(NDArray.of(new float[] {1}, 1));
        assertNull(c.grad());
    }

    @Test
    void backwardErrorsSayWhatIsWrong() {
        Tensor x = param(1, 2);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> x.mul(2f).backward());
        assertTrue(e.getMessage().contains("not a single element") && e.getMessage().contains("(2,)"), e.getMessage());
        Tensor c = Tensor.constant(NDArray.of(new float[] {1}, 1));
        e = assertThrows(IllegalStateException.class, () -> c.mul(2f).sum().backward());
        assertTrue(e.getMessage().contains("does not require gradients"), e.getMessage());
        x.mul(2f).backward(NDArray.of(new float[] {1, 10}, 2));
        assertArrayEquals(new float[] {2, 20}, x.grad().toArray());
        IllegalArgumentException shape = assertThrows(IllegalArgumentException.class,
                () -> x.matmul(Tensor.constant(NDArray.of(new float[] {1, 2, 3}, 3, 1))));
        assertTrue(shape.getMessage().contains("matmul"), shape.getMessage());
    }

    @Test
    void aStepInsideAScopeLeavesOnlyTheParameterGradients() {
        long before = Device.cpu().backend().liveElements();
        Tensor w = Tensor.parameter(ArrayScope.outside(() -> NDArray.ones(Device.cpu(), 64, 32)));
        long withParams = Device.cpu().backend().liveElements();
        for (int step = 0; step < 3; step++) {
            try (ArrayScope scope = ArrayScope.open()) {
                Tensor x = Tensor.constant(NDArray.ones(Device.cpu(), 16, 64));
                x.matmul(w).relu().sum().backward();
            }
            assertEquals(withParams + 64 * 32, Device.cpu().backend().liveElements(), "after step " + step);
        }
        w.close();
        assertEquals(before, Device.cpu().backend().liveElements());
    }

    @Test
    void deepChainsDoNotOverflowTheStack() {
        Tensor x = param(1);
        Tensor y = x;
        for (int i = 0; i < 20000; i++) y = y.add(0f);
        y.sum().backward();
        assertArrayEquals(new float[] {1}, x.grad().toArray());
    }

    @Test
    void gradReadyHooksFireOncePerLeafAfterItsLastUse() {
        Tensor a = param(1, 2), b = param(3, 4);
        java.util.List<String> fired = new java.util.ArrayList<>();
        // a is used twice (early and late): it must be reported once, with the sum of both contributions
        Tensor h = a.mul(b);
        h.add(a.mul(10f)).sum().backward(t -> fired.add((t == a ? "a=" : "b=") + java.util.Arrays.toString(t.grad().toArray())));
        assertEquals(2, fired.size(), fired.toString());
        assertTrue(fired.contains("a=[13.0, 14.0]"), fired.toString());
        assertTrue(fired.contains("b=[1.0, 2.0]"), fired.toString());
        Tensor c = param(5);
        assertArrayEquals(new float[] {0}, c.ensureGrad().toArray());
        assertTrue(c.ensureGrad() == c.grad());
    }
}
