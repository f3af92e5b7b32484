package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.ring.RingCommunicator;
import org.mpi2nccl.cuda.GpuTests;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * Lesson 03's stage checks on one GPU: one rank (a 1-rank ring) whose model, batches and gradients live on cuda:0,
 * compared with one rank on the whole batch on the same GPU. The answers are the notebook's reference answers, with
 * one change a GPU needs: the averaged gradient is copied back as an array on the gradient's device
 * ({@code NDArray.of(p.grad().device(), ...)}), since assign copies between arrays of one device only. The data are
 * synthetic examples shaped like Fashion-MNIST's (the GPU machine has no Fashion-MNIST).
 */
@Tag("gpu")
class Lesson03GpuTest {
    /** {@code BATCH * STEPS} random 1x28x28 examples of 10 classes, on {@code device}. */
    static Lesson03.Setup on(Device device) {
        return new Lesson03.Setup(device, new SyntheticDataset(Lesson03.BATCH * Lesson03.STEPS, new int[] {1, 28, 28}, 10, 5));
    }

    // ---- the notebook's reference answers, written back on the gradient's device ----------------------------------

    static void averageGradients(List<Tensor> params, Communicator comm) {
        for (Tensor p : params) {
            float[] g = p.grad().toArray();
            comm.allReduce(HostBuffer.of(g), Reduction.SUM);
            for (int i = 0; i < g.length; i++) g[i] /= comm.size();
            p.grad().assign(NDArray.of(p.grad().device(), g, p.shape()));
        }
    }

    static void unflatten(float[] flat, List<Tensor> bucket) {
        int at = 0;
        for (Tensor p : bucket) {
            int n = (int) p.size();
            p.grad().assign(NDArray.of(p.grad().device(), Arrays.copyOfRange(flat, at, at + n), p.shape()));
            at += n;
        }
    }

    static void averageBuckets(List<List<Tensor>> buckets, Communicator comm) {
        for (List<Tensor> bucket : buckets) {
            float[] flat = Lesson03Test.flatten(bucket);
            comm.allReduce(HostBuffer.of(flat), Reduction.AVG);
            unflatten(flat, bucket);
        }
    }

    static Lesson03.Overlap overlapStep(List<List<Tensor>> buckets, Communicator comm, ExecutorService commThread) {
        Map<Tensor, Integer> bucketOf = new IdentityHashMap<>();
        for (int b = 0; b < buckets.size(); b++) for (Tensor p : buckets.get(b)) bucketOf.put(p, b);
        int[] ready = new int[buckets.size()];
        List<Future<float[]>> results = new ArrayList<>(Collections.nCopies(buckets.size(), null));
        return new Lesson03.Overlap() {
            @Override public void gradientReady(Tensor p) {
                int b = bucketOf.get(p);
                if (++ready[b] < buckets.get(b).size()) return;
                float[] flat = Lesson03Test.flatten(buckets.get(b));
                results.set(b, commThread.submit(() -> {
                    comm.allReduce(HostBuffer.of(flat), Reduction.AVG);
                    return flat;
                }));
            }

            @Override public void finish() throws Exception {
                for (int b = 0; b < buckets.size(); b++) unflatten(results.get(b).get(), buckets.get(b));
            }
        };
    }

    // ---- the checks on one device -----------------------------------------------------------------------------------

    /** Stage 1 (the toolkit's averaging, Tensors.allReduce on the device's gradients) on {@code device}, one rank. */
    static Check stage1(Device device) {
        try (RingCommunicator c = RingCommunicator.threads(1, b -> {}).get(0)) {
            return Lesson03.checkShares(on(device), 0, 1, c, new Lesson03Times(), Lesson03Test::myShare);
        }
    }

    /** Stages 2, 3 and 4 with the reference answers on {@code device}, one rank. */
    static List<Check> stages2to4(Device device) {
        Lesson03.Setup on = on(device);
        Lesson03Times times = new Lesson03Times();
        try (RingCommunicator c = RingCommunicator.threads(1, b -> {}).get(0)) {
            return List.of(
                    Lesson03.checkAveraging(on, 0, 1, c, times, Lesson03GpuTest::averageGradients),
                    Lesson03.checkBuckets(on, 0, 1, c, times, Lesson03Test::planBuckets, Lesson03GpuTest::averageBuckets),
                    Lesson03.checkOverlap(on, 0, 1, c, times, Lesson03GpuTest::overlapStep));
        }
    }

    @Test
    void stagesTwoToFourPassOnOneGpu() {
        GpuTests.requireGpu();
        for (Check k : stages2to4(Device.cuda(0))) {
            System.out.println(k);
            assertTrue(k.passed(), k.toString());
        }
    }

    @Test
    void stageOnePassesOnOneGpu() {
        GpuTests.requireGpu();
        Check k = stage1(Device.cuda(0));
        System.out.println(k);
        assertTrue(k.passed(), k.toString());
    }
}
