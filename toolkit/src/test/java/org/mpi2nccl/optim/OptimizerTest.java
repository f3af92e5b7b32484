package org.mpi2nccl.optim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.NDArray;

/** SGD and Adam: exact first steps, convergence on a quadratic, argument checks. */
class OptimizerTest {

    private static Tensor param(float... v) { return Tensor.parameter(NDArray.of(v, v.length)); }

    /** loss = sum((x - target)^2) */
    private static void backwardQuadratic(Tensor x, float[] target) {
        try (ArrayScope s = ArrayScope.open()) {
            x.sub(Tensor.constant(NDArray.of(target, target.length))).pow(2f).sum().backward();
        }
    }

    @Test
    void sgdMomentumAndWeightDecayExactSteps() {
        Tensor x = param(1f, -2f);
        SGD sgd = new SGD(List.of(x), 0.1f, 0.9f, 0.5f);
        sgd.zeroGrad();
        backwardQuadratic(x, new float[] {0, 0});   // grad = 2x = (2, -4)
        sgd.step();
        // d = g + 0.5 x = (2.5, -5); v = d; x -= 0.1 v
        assertArrayEquals(new float[] {0.75f, -1.5f}, x.data().toArray(), 1e-6f);
        sgd.zeroGrad();
        backwardQuadratic(x, new float[] {0, 0});   // grad = (1.5, -3)
        sgd.step();
        // d = (1.5 + 0.375, -3 - 0.75) = (1.875, -3.75); v = 0.9 * (2.5, -5) + d = (4.125, -8.25)
        assertArrayEquals(new float[] {0.75f - 0.4125f, -1.5f + 0.825f}, x.data().toArray(), 1e-6f);
    }

    /** Data-parallel training splits an SGD step in two (parameters already averaged, then the rest): the same result. */
    @Test
    void anSgdStepInTwoPartsEqualsOneStep() {
        float[][] start = {{1f, -2f, 0.5f}, {3f, 0.25f}};
        float[][][] after = new float[2][][];
        for (int split = 0; split < 2; split++) {
            Tensor a = param(start[0]), b = param(start[1]);
            SGD sgd = new SGD(List.of(a, b), 0.1f, 0.9f, 0.01f);
            for (int k = 0; k < 3; k++) {
                sgd.zeroGrad();
                backwardQuadratic(a, new float[] {0, 1, 2});
                backwardQuadratic(b, new float[] {-1, 4});
                if (split == 0) {
                    sgd.step();
                } else {
                    sgd.step(p -> p == b);
                    sgd.step(p -> p == a);
                }
            }
            after[split] = new float[][] {a.data().toArray(), b.data().toArray()};
        }
        assertArrayEquals(after[0][0], after[1][0], 0f);
        assertArrayEquals(after[0][1], after[1][1], 0f);
        assertTrue(new SGD(List.of(param(1f)), 0.1f).stepsInParts());
    }

    /**
     * A recorded step reads its learning rate from an array (written before each replay): the same steps as the rate
     * set on the optimizer, whatever the optimizer's own rate is; anything but one element of its own is refused.
     */
    @Test
    void anSgdStepReadingItsRateFromAnArrayEqualsOneWithThatRate() {
        float[] rates = {0.1f, 0.05f, 0.2f};
        float[][] after = new float[2][];
        for (int fromArray = 0; fromArray < 2; fromArray++) {
            Tensor x = param(1f, -2f, 0.5f);
            try (SGD sgd = new SGD(List.of(x), 0.7f, 0.9f, 0.01f); NDArray lr = NDArray.of(new float[] {0f}, 1)) {
                for (float rate : rates) {
                    sgd.zeroGrad();
                    backwardQuadratic(x, new float[] {0, 1, 2});
                    if (fromArray == 0) {
                        sgd.setLr(rate);
                        sgd.step();
                    } else {
                        lr.fill(rate);          // the optimizer's own rate stays 0.7: not used
                        sgd.step(p -> true, lr);
                    }
                }
                after[fromArray] = x.data().toArray();
            }
        }
        assertArrayEquals(after[0], after[1], 0f);
        Tensor y = param(1f);
        try (SGD sgd = new SGD(List.of(y), 0.1f); NDArray two = NDArray.of(new float[] {0.1f, 0.2f}, 2)) {
            sgd.zeroGrad();
            backwardQuadratic(y, new float[] {0});
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> sgd.step(p -> true, two));
            assertTrue(e.getMessage().contains("one element") && e.getMessage().contains("[2]"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> sgd.step(p -> true, two.slice(0, 1, 2)), "a view of another array");
        }
    }

    @Test
    void adamCannotStepInParts() {
        Adam adam = new Adam(List.of(param(1f)), 0.1f);
        assertTrue(!adam.stepsInParts());
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> adam.step(p -> true));
        assertTrue(e.getMessage().contains("Adam"), e.getMessage());
    }

    @Test
    void adamFirstStepMovesEachCoordinateByTheLearningRate() {
        Tensor x = param(3f, -1f, 0.5f);
        Adam adam = new Adam(List.of(x), 0.01f);
        adam.zeroGrad();
        backwardQuadratic(x, new float[] {0, 0, 0});
        adam.step();
        // bias-corrected first step: m_hat / sqrt(v_hat) = sign(g)
        assertArrayEquals(new float[] {2.99f, -0.99f, 0.49f}, x.data().toArray(), 1e-5f);
        assertEquals(1, adam.steps());
    }

    @Test
    void bothConvergeOnAQuadratic() {
        float[] target = {1f, -2f, 3f};
        for (String kind : new String[] {"sgd", "adam"}) {
            Tensor x = param(0f, 0f, 0f);
            Optimizer opt = kind.equals("sgd") ? new SGD(List.of(x), 0.05f, 0.9f, 0f) : new Adam(List.of(x), 0.1f);
            for (int i = 0; i < 300; i++) {
                opt.zeroGrad();
                backwardQuadratic(x, target);
                opt.step();
            }
            assertArrayEquals(target, x.data().toArray(), 1e-2f, kind);
            opt.close();
        }
    }

    @Test
    void badArgumentsAreNamed() {
        Tensor x = param(1f);
        assertThrows(IllegalArgumentException.class, () -> new SGD(List.of(x), -1f));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Adam(List.of(), 0.1f));
        assertTrue(e.getMessage().contains("no parameters"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> new SGD(List.of(Tensor.constant(NDArray.of(new float[] {1}, 1))), 0.1f));
        assertTrue(e.getMessage().contains("requires gradients"), e.getMessage());
    }

    @Test
    void stateIsCountedFromTheArraysTheOptimizerKeeps() {
        Tensor a = param(1f, 2f, 3f), b = param(4f, 5f);
        assertEquals(0, new SGD(List.of(a, b), 0.1f).stateElements(), "plain SGD keeps nothing between steps");
        SGD momentum = new SGD(List.of(a, b), 0.1f, 0.9f, 0f);
        assertEquals(5, momentum.stateElements(), "one velocity per parameter");
        Adam adam = new Adam(List.of(a, b), 0.1f);
        assertEquals(10, adam.stateElements(), "two moments per parameter");
        adam.close();
        momentum.close();
        assertEquals(0, adam.stateElements(), "closed: nothing kept");
        assertEquals(0, momentum.stateElements());
    }
}
