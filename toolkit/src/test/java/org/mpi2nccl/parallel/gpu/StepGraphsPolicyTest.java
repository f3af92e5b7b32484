package org.mpi2nccl.parallel.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.data.Batch;
import org.mpi2nccl.nn.Linear;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;
import org.mpi2nccl.tensor.Rng;

/**
 * When {@link StepGraphs} records a step and what it does when recording fails, without a GPU: the recorder is a
 * stand-in (the real one, GraphedSteps', records CUDA graphs: StepGraphsGpuTest and DataParallelGpuTest run it).
 */
class StepGraphsPolicyTest {
    private final Linear model = new Linear(4, 3, Device.cpu(), new Rng(0));
    private final SGD sgd = new SGD(model.parameters(), 0.1f, 0.9f, 0f);

    private static Batch batch(int n) {
        return new Batch(NDArray.zeros(Device.cpu(), n, 4), NDArray.zeros(Device.cpu(), n));
    }

    @Test
    void aStepIsRecordedOnlyAfterSteadyStepsOfOneShape() {
        AtomicInteger recordings = new AtomicInteger();
        try (StepGraphs graphs = new StepGraphs(null, model)) {
            StepGraphs.Recorder recorder = (key, b) -> {
                recordings.incrementAndGet();
                return null;        // stands for a recording: forStep hands back what the recorder made
            };
            assertNull(graphs.forStep(batch(8), sgd, recorder));
            assertNull(graphs.forStep(batch(5), sgd, recorder), "a shorter batch (an epoch's last) runs eagerly");
            sgd.setLr(0.05f);
            for (int i = 0; i < StepGraphs.STEADY_STEPS; i++) {
                graphs.forStep(batch(8), sgd, recorder);
                assertEquals(0, recordings.get(), "eager step " + (i + 1) + " after the shape changed");
            }
            graphs.forStep(batch(8), sgd, recorder);
            assertEquals(1, recordings.get(), "recorded once the shape held for " + StepGraphs.STEADY_STEPS + " steps");
        }
    }

    /** A learning-rate warm-up changes the rate at every step: the recorded update reads it, so it is recorded all the same. */
    @Test
    void aRateThatChangesEveryStepDoesNotKeepTheStepEager() {
        AtomicInteger recordings = new AtomicInteger();
        try (StepGraphs graphs = new StepGraphs(null, model)) {
            for (int i = 0; i <= StepGraphs.STEADY_STEPS; i++) {
                sgd.setLr(0.01f * (i + 1));
                graphs.forStep(batch(8), sgd, (key, b) -> {
                    recordings.incrementAndGet();
                    return null;
                });
            }
            assertEquals(1, recordings.get(), "recorded after " + StepGraphs.STEADY_STEPS + " steps of one shape, the rate changing");
        }
    }

    @Test
    void aFailedRecordingOfTheModelAloneGoesOnEagerlyAndSaysWhy() {
        try (StepGraphs graphs = new StepGraphs(null, model)) {
            StepGraphs.Recorder failing = (key, b) -> {
                throw new IllegalStateException("recording a CUDA graph failed: stand-in");
            };
            for (int i = 0; i <= StepGraphs.STEADY_STEPS; i++) assertNull(graphs.forStep(batch(8), sgd, failing));
            assertTrue(graphs.off().contains("stand-in"), graphs.off());
            assertNull(graphs.forStep(batch(8), sgd, (key, b) -> {
                throw new AssertionError("no second recording after a failure");
            }));
        }
    }

    @Test
    void aFailedRecordingOfTheAllReducesStopsTheRank() {
        try (StepGraphs graphs = new StepGraphs(null, model)) {
            StepGraphs.RecordingFailed why = new StepGraphs.RecordingFailed("rank 1: recording ... with its all-reduces failed", null);
            for (int i = 0; i < StepGraphs.STEADY_STEPS; i++) graphs.forStep(batch(8), sgd, (key, b) -> null);
            StepGraphs.RecordingFailed thrown = assertThrows(StepGraphs.RecordingFailed.class,
                    () -> graphs.forStep(batch(8), sgd, (key, b) -> {
                        throw why;
                    }));
            assertSame(why, thrown);
        }
    }
}
