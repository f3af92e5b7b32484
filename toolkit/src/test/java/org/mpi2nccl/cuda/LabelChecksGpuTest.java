package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.Storage;

/**
 * The bad-label checks recorded into CUDA graphs ({@link LabelChecks}): a closed recording's slots serve the next
 * recording (recording again and again does not pile up device flags and pinned words), and a bad label that the
 * last replay of a recording found is still reported, once, after that recording was closed.
 */
@Tag("gpu")
class LabelChecksGpuTest {
    private static final int ROWS = 4;
    private static final int CLASSES = 3;

    @Test
    void recordingAgainReusesTheClosedRecordingsSlots() {
        GpuTests.requireGpu();
        CudaBackend gpu = CudaBackend.open(0);
        try (Storage labels = gpu.allocate(ROWS); Storage out = gpu.allocate(ROWS * CLASSES)) {
            gpu.copyFromHost(new float[] {0, 1, 2, 1}, 0, labels, 0, ROWS);
            recordReplayAndClose(gpu, labels, out);
            int slots = gpu.labelChecks().recordedSlots();
            for (int i = 0; i < 5; i++) recordReplayAndClose(gpu, labels, out);
            assertEquals(slots, gpu.labelChecks().recordedSlots(), "slots after 5 more recordings, each closed");
            float[] oneHot = new float[ROWS * CLASSES];
            gpu.copyToHost(out, 0, oneHot, 0, oneHot.length);
            assertEquals(1f, oneHot[2 * CLASSES + 2], "row 2's label 2, from the last replay");
            System.out.println("label checks: " + slots + " recorded slot(s) kept over 6 recordings");
        }
    }

    @Test
    void aBadLabelOfAClosedRecordingsLastReplayIsReportedOnce() {
        GpuTests.requireGpu();
        CudaBackend gpu = CudaBackend.open(0);
        try (Storage labels = gpu.allocate(ROWS); Storage out = gpu.allocate(ROWS * CLASSES)) {
            gpu.copyFromHost(new float[] {0, 1, 2, 1}, 0, labels, 0, ROWS);
            GraphRecording rec = gpu.recording();
            CudaGraph graph;
            try {
                gpu.oneHot(labels, out, ROWS, CLASSES);
                graph = rec.finish();
            } catch (RuntimeException e) {
                throw rec.abort(e);
            }
            gpu.copyFromHost(new float[] {0, 1, 7, 1}, 0, labels, 0, ROWS);    // row 2: not a class
            graph.launch();
            rec.close();                    // waits for the replay: its bad label is read before the slot is reused
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, gpu::synchronize);
            assertTrue(e.getMessage().contains("position 2") && e.getMessage().contains("CUDA graph"), e.getMessage());
            assertDoesNotThrow(gpu::synchronize, "reported once");
            System.out.println("label checks: a closed recording's bad label reported once: " + e.getMessage());
        }
    }

    private static void recordReplayAndClose(CudaBackend gpu, Storage labels, Storage out) {
        GraphRecording rec = gpu.recording();
        CudaGraph graph;
        try {
            gpu.oneHot(labels, out, ROWS, CLASSES);
            graph = rec.finish();
        } catch (RuntimeException e) {
            throw rec.abort(e);
        }
        graph.launch();
        gpu.synchronize();                  // good labels: no error
        rec.close();
    }
}
