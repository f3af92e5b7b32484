package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.mpi2nccl.tensor.BackendTestData.size;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Functions;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.BackendTestData;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Rng;

/**
 * Gradients on the GPU: the same autograd graphs run on the CPU and on GPU 0 from the same inputs, and every
 * input's gradient is compared (1e-4 relative; the CPU's gradients are themselves finite-difference checked
 * by GradientCheckTest). Then a whole step of the lesson CNN (forward, backward, SGD) on both devices.
 */
@Tag("gpu")
class CudaGradientsTest {
    private static final Device GPU = Device.cuda(0);
    private final Random random = new Random(31);

    @BeforeAll
    static void gpu() {
        GpuTests.requireGpu();
    }

    private float[] randoms(int n, float lo, float hi) { return BackendTestData.randoms(random, n, lo, hi); }

    /** Runs graph on both devices (inputs require gradients), compares the scalar output and every input gradient. */
    private void sameGradients(String what, double rel, Function<Tensor[], Tensor> graph, float[][] inputs, int[][] shapes) {
        List<float[]> cpu = run(Device.cpu(), graph, inputs, shapes), gpu = run(GPU, graph, inputs, shapes);
        GpuTests.assertClose(cpu.get(0), gpu.get(0), rel, what + ": value");
        for (int i = 1; i < cpu.size(); i++) GpuTests.assertClose(cpu.get(i), gpu.get(i), rel, what + ": gradient of input " + (i - 1));
    }

    private static List<float[]> run(Device d, Function<Tensor[], Tensor> graph, float[][] inputs, int[][] shapes) {
        List<float[]> out = new ArrayList<>();
        try (ArrayScope s = ArrayScope.open()) {
            Tensor[] t = new Tensor[inputs.length];
            for (int i = 0; i < t.length; i++) t[i] = Tensor.parameter(NDArray.of(d, inputs[i], shapes[i]));
            Tensor y = graph.apply(t);
            y.backward();
            out.add(y.toArray());
            for (Tensor x : t) {
                assertNotNull(x.grad(), "no gradient reached an input on " + d);
                out.add(x.grad().toArray());
            }
        }
        return out;
    }

    @Test
    void elementwiseReductionsAndMatmul() {
        int[] sx = {4, 5, 6}, srow = {6}, scol = {4, 1, 1}, sw = {6, 7};
        float[][] in = {randoms(size(sx), -1, 1), randoms(6, -1, 1), randoms(4, 0.5f, 2), randoms(42, -1, 1)};
        int[][] shapes = {sx, srow, scol, sw};
        sameGradients("broadcast add/mul/div, relu, tanh, sigmoid, exp, matmul, sum, max, mean", 1e-4, t -> {
            Tensor a = t[0].add(t[1]).mul(t[2]).relu();
            Tensor b = t[0].div(t[2]).tanh().add(t[0].sigmoid()).sub(t[0].mul(0.5f).exp());
            Tensor c = a.add(b).matmul(t[3]);
            return c.sum().add(c.max(2).mean()).add(c.pow(2f).mean(0, 1).sum());
        }, in, shapes);
    }

    @Test
    void logSoftmaxAndCrossEntropy() {
        int rows = 64, classes = 10;
        float[] logits = randoms(rows * classes, -4, 4), labels = new float[rows];
        for (int i = 0; i < rows; i++) labels[i] = random.nextInt(classes);
        List<float[]> results = new ArrayList<>();
        for (Device d : new Device[] {Device.cpu(), GPU}) {
            try (ArrayScope s = ArrayScope.open()) {
                Tensor x = Tensor.parameter(NDArray.of(d, logits, rows, classes));
                Tensor loss = Functions.softmaxCrossEntropy(x, NDArray.of(d, labels, rows)).add(x.logSoftmax(1).mul(0.01f).sum())
                        .add(x.logsumexp(1).mean());
                loss.backward();
                results.add(loss.toArray());
                results.add(x.grad().toArray());
            }
        }
        GpuTests.assertClose(results.get(0), results.get(2), 1e-4, "loss");
        GpuTests.assertClose(results.get(1), results.get(3), 1e-4, "d loss / d logits");
    }

    @Test
    void convolutionPoolingAndBatchNorm() {
        int[] sx = {4, 3, 12, 12}, sw = {8, 3, 3, 3}, sg = {8}, sb = {8};
        float[][] in = {randoms(size(sx), -1, 1), randoms(size(sw), -0.5f, 0.5f), randoms(8, 0.5f, 1.5f), randoms(8, -0.2f, 0.2f)};
        sameGradients("conv2d (stride 1, pad 1) -> batch norm -> relu -> max-pool 2", 1e-4, t -> {
            Tensor y = Functions.conv2d(t[0], t[1], 1, 1);
            y = Functions.batchNorm2d(y, t[2], t[3], 1e-5f).relu();
            return Functions.maxPool2d(y, 2, 2, 0).pow(2f).sum();
        }, in, new int[][] {sx, sw, sg, sb});
        int[] sx2 = {2, 2, 9, 9}, sw2 = {3, 2, 3, 3};
        sameGradients("conv2d stride 2 pad 0, overlapping max-pool 3/2", 1e-4,
                t -> Functions.maxPool2d(Functions.conv2d(t[0], t[1], 2, 0), 3, 2, 1).sum(),
                new float[][] {randoms(size(sx2), -1, 1), randoms(size(sw2), -1, 1)}, new int[][] {sx2, sw2});
    }

    @Test
    void dropoutDrawsTheSameMaskOnBothDevices() {
        int[] sx = {32, 50};
        float[][] in = {randoms(size(sx), -1, 1)};
        sameGradients("dropout p=0.3 (counter-based random numbers)", 1e-5,
                t -> Functions.dropout(t[0], 0.3f, new Rng(77)).mul(t[0]).sum(), in, new int[][] {sx});
    }

    /** One full training step of the lesson CNN: same seed, same batch; loss, every gradient, every updated weight. */
    @Test
    void oneStepOfTheLessonCnnMatches() {
        int batch = 32;
        float[] x = randoms(batch * 28 * 28, 0, 1), labels = new float[batch];
        for (int i = 0; i < batch; i++) labels[i] = random.nextInt(10);
        List<Map<String, float[]>> grads = new ArrayList<>(), weights = new ArrayList<>();
        List<Float> losses = new ArrayList<>();
        for (Device d : new Device[] {Device.cpu(), GPU}) {
            try (Module net = Models.cnn(8, 16, d, 42); SGD opt = new SGD(net.parameters(), 0.05f, 0.9f, 1e-4f);
                 ArrayScope s = ArrayScope.open()) {
                Tensor loss = new SoftmaxCrossEntropyLoss().forward(net.forward(Tensor.constant(NDArray.of(d, x, batch, 1, 28, 28))),
                        NDArray.of(d, labels, batch));
                loss.backward();
                Map<String, float[]> g = new java.util.TreeMap<>(), w = new java.util.TreeMap<>();
                net.namedParameters().forEach((name, p) -> g.put(name, p.grad().toArray()));
                opt.step();
                net.namedParameters().forEach((name, p) -> w.put(name, p.data().toArray()));
                grads.add(g);
                weights.add(w);
                losses.add(loss.item());
            }
        }
        assertEquals(losses.get(0), losses.get(1), 1e-4 * Math.abs(losses.get(0)), "CNN loss cpu vs cuda");
        assertEquals(grads.get(0).keySet(), grads.get(1).keySet());
        for (String name : grads.get(0).keySet()) {
            // gradients of a 2-layer CNN with batch norm: sums over up to 25k products each, compared at 1e-3
            GpuTests.assertClose(grads.get(0).get(name), grads.get(1).get(name), 1e-3, "gradient " + name);
            GpuTests.assertClose(weights.get(0).get(name), weights.get(1).get(name), 1e-4, "updated " + name);
        }
        System.out.println("CNN step: loss cpu " + losses.get(0) + ", cuda " + losses.get(1) + "; " + grads.get(0).size() + " parameter gradients match");
    }
}
