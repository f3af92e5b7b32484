package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.ArrayScope;
import org.mpi2nccl.tensor.Backend;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Rng;

/**
 * A real training loop (a 2-layer MLP on two Gaussian blobs, hand-written backward, SGD through the backend)
 * for 1000 steps, one ArrayScope per step: the memory the backend holds must be the same after step 10 and
 * after step 1000, and on the GPU the pool and the driver's free memory must not drift. The loss must fall
 * (it trains). Runs on the CPU everywhere and on GPU 0 where there is one.
 */
class TrainingLoopMemoryTest {
    static final int STEPS = 1000, BATCH = 64, IN = 32, HIDDEN = 64, CLASSES = 2;

    @Test
    void cpuLoopDoesNotGrow() {
        run(Device.cpu());
    }

    @Test
    @Tag("gpu")
    void gpuLoopDoesNotGrowDeviceMemory() {
        GpuTests.requireGpu();
        CudaContext ctx = Cuda.device(0).context();
        ctx.synchronize();
        run(Device.cuda(0));
    }

    /** The lesson CNN through nn/autograd/optim (batch norm, conv, pooling, SGD momentum) for 1000 steps on the GPU. */
    @Test
    @Tag("gpu")
    void gpuCnnThroughNnDoesNotGrowDeviceMemory() {
        GpuTests.requireGpu();
        Device d = Device.cuda(0);
        CudaBackend be = (CudaBackend) d.backend();
        int batch = 32;
        Random r = new Random(9);
        float[] x = new float[batch * 28 * 28], labels = new float[batch];
        long liveAt10 = -1;
        CudaContext.MemoryStats at10 = null;
        float first = Float.NaN, last = Float.NaN;
        try (Module net = Models.cnn(8, 16, d, 3); SGD opt = new SGD(net.parameters(), 0.05f, 0.9f, 0f)) {
            SoftmaxCrossEntropyLoss lossFn = new SoftmaxCrossEntropyLoss();
            for (int step = 0; step < STEPS; step++) {
                for (int i = 0; i < batch; i++) {                  // class = which quadrant is bright: learnable
                    int cls = r.nextInt(4);
                    labels[i] = cls;
                    for (int p = 0; p < 28 * 28; p++) {
                        int row = p / 28, col = p % 28, quadrant = (row < 14 ? 0 : 2) + (col < 14 ? 0 : 1);
                        x[i * 784 + p] = (quadrant == cls ? 1f : 0f) + 0.3f * r.nextFloat();
                    }
                }
                try (ArrayScope scope = ArrayScope.open()) {
                    opt.zeroGrad();
                    Tensor loss = lossFn.forward(net.forward(Tensor.constant(NDArray.of(d, x, batch, 1, 28, 28))), NDArray.of(d, labels, batch));
                    loss.backward();
                    opt.step();
                    if (step == 0 || step == STEPS - 1) {
                        if (step == 0) first = loss.item();
                        else last = loss.item();
                    }
                }
                if (step == 10) {
                    be.synchronize();
                    liveAt10 = be.liveElements();
                    at10 = be.context().memoryStats();
                }
                if (step > 10) assertEquals(liveAt10, be.liveElements(), "elements held on the GPU after step " + step);
            }
            be.synchronize();
            CudaContext.MemoryStats end = be.context().memoryStats();
            System.out.println("cuda:0 CNN: loss " + first + " -> " + last + "; after step 10 " + at10 + "\ncuda:0 CNN: after step " + STEPS + " " + end);
            assertTrue(last < 0.5f * first, "the CNN trains: loss " + first + " -> " + last);
            assertEquals(at10.liveBytes(), end.liveBytes(), "bytes in DeviceMemory");
            if (at10.poolReserved() >= 0) assertTrue(end.poolReserved() <= at10.poolReserved() + (8 << 20), "pool grew: " + at10 + " -> " + end);
            assertTrue(end.deviceFree() >= at10.deviceFree() - (32 << 20), "GPU free memory fell: " + at10 + " -> " + end);
            assertEquals(at10.reclaimedByGc(), end.reclaimedByGc(), "no block was left for the garbage collector");
        }
    }

    private static void run(Device d) {
        Backend be = d.backend();
        Random r = new Random(5);
        float[] x = new float[BATCH * IN], y = new float[BATCH * CLASSES];
        Rng rng = new Rng(11);
        NDArray w1 = NDArray.uniform(d, rng, -0.2f, 0.2f, IN, HIDDEN), b1 = NDArray.zeros(d, HIDDEN);
        NDArray w2 = NDArray.uniform(d, rng, -0.2f, 0.2f, HIDDEN, CLASSES), b2 = NDArray.zeros(d, CLASSES);
        long liveAt10 = -1;
        CudaContext.MemoryStats statsAt10 = null;
        float firstLoss = Float.NaN, lastLoss = Float.NaN;
        try {
            for (int step = 0; step < STEPS; step++) {
                for (int i = 0; i < BATCH; i++) {                    // a fresh batch of two blobs each step
                    int cls = r.nextInt(CLASSES);
                    for (int j = 0; j < IN; j++) x[i * IN + j] = (float) (r.nextGaussian() + (cls == 0 ? 1 : -1) * (j % 2 == 0 ? 0.8 : 0));
                    for (int c = 0; c < CLASSES; c++) y[i * CLASSES + c] = c == cls ? 1 : 0;
                }
                try (ArrayScope scope = ArrayScope.open()) {
                    NDArray xb = NDArray.of(d, x, BATCH, IN), yb = NDArray.of(d, y, BATCH, CLASSES);
                    NDArray pre = xb.matmul(w1).add(b1), h = pre.relu();
                    NDArray logits = h.matmul(w2).add(b2);
                    NDArray shifted = logits.sub(logits.maxKeepDims(1));
                    NDArray e = shifted.exp(), p = e.div(e.sumKeepDims(1));
                    NDArray loss = shifted.sub(e.sumKeepDims(1).log()).mul(yb).sum().mul(-1f / BATCH);
                    NDArray dlogits = p.sub(yb).mul(1f / BATCH);
                    NDArray dw2 = h.transpose().matmul(dlogits), db2 = dlogits.sum(0);
                    NDArray dh = dlogits.matmul(w2.transpose()).mul(pre.gt(0f));
                    NDArray dw1 = xb.transpose().matmul(dh), db1 = dh.sum(0);
                    sgd(be, w1, dw1);
                    sgd(be, b1, db1);
                    sgd(be, w2, dw2);
                    sgd(be, b2, db2);
                    if (step == 0 || step == STEPS - 1 || step % 100 == 0) {
                        float l = loss.item();
                        if (step == 0) firstLoss = l;
                        lastLoss = l;
                    }
                }
                if (step == 10) {
                    be.synchronize();
                    liveAt10 = be.liveElements();
                    if (!d.isCpu()) statsAt10 = ((CudaBackend) be).context().memoryStats();
                }
                if (step > 10) assertEquals(liveAt10, be.liveElements(), "elements held by the " + d + " backend after step " + step);
            }
            be.synchronize();
            System.out.println(d + ": loss " + firstLoss + " -> " + lastLoss + " in " + STEPS + " steps; live elements " + be.liveElements());
            assertTrue(lastLoss < 0.5f * firstLoss, "the loop trains: loss " + firstLoss + " -> " + lastLoss);
            if (!d.isCpu()) {
                CudaContext.MemoryStats end = ((CudaBackend) be).context().memoryStats();
                System.out.println(d + ": after step 10 " + statsAt10 + "\n" + d + ": after step " + STEPS + " " + end);
                assertEquals(statsAt10.liveBytes(), end.liveBytes(), "bytes in DeviceMemory");
                if (statsAt10.poolReserved() >= 0) {
                    assertTrue(end.poolReserved() <= statsAt10.poolReserved() + (4 << 20), "pool grew from " + statsAt10.poolReserved() + " to " + end.poolReserved());
                }
                assertTrue(end.deviceFree() >= statsAt10.deviceFree() - (16 << 20),
                        "GPU free memory fell from " + statsAt10.deviceFree() + " to " + end.deviceFree());
                assertEquals(statsAt10.reclaimedByGc(), end.reclaimedByGc(), "no block was left for the garbage collector");
            }
        } finally {
            w1.close();
            b1.close();
            w2.close();
            b2.close();
        }
    }

    private static void sgd(Backend be, NDArray param, NDArray grad) {
        try (NDArray g = grad.compact()) {
            be.sgdStep(param.storage(), g.storage(), null, param.size(), 0.5f, 0f, 0f);
        }
    }
}
