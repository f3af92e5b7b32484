package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;

/** The per-step table on epochs whose numbers are chosen so that every entry is known. */
class StepCostsTest {
    /** An epoch of {@code steps} steps whose phases take the given microseconds per step. */
    private static Map<String, Object> epoch(int ranks, int epoch, long steps, double forwardUs, double backwardUs, double commUs,
                                             double optimizerUs, double otherUs) {
        Map<String, Object> m = new HashMap<>();
        m.put("ranks", ranks);
        m.put("epoch", epoch);
        m.put("device", "test");
        m.put("steps", steps);
        m.put("samples", steps * 100);
        double s = steps * 1e-6;
        m.put("forward_s", forwardUs * s);
        m.put("backward_s", backwardUs * s);
        m.put("comm_s", commUs * s);
        m.put("optimizer_s", optimizerUs * s);
        m.put("epoch_s", (forwardUs + backwardUs + commUs + optimizerUs + otherUs) * s);
        m.put("test_acc", 0.5);
        return m;
    }

    @Test
    void eachRunsStepAndWhatItAddsToOneRanksStep() {
        SpeedupResults r = new SpeedupResults("test", "test");
        // the first epoch of a run is left out: its numbers here would spoil every mean
        r.add("single", epoch(1, 1, 400, 9000, 9000, 9000, 9000, 9000));
        r.add("single", epoch(1, 2, 400, 260, 490, 3, 11, 46));
        r.add("single", epoch(1, 3, 400, 262, 494, 3, 11, 48));
        r.add("nccl", epoch(2, 1, 200, 9000, 9000, 9000, 9000, 9000));
        r.add("nccl", epoch(2, 2, 200, 266, 510, 23, 8, 49));
        r.add("nccl", epoch(2, 3, 200, 266, 512, 23, 8, 49));
        Map<String, Object> peer = epoch(2, 2, 200, 0, 0, 0, 0, 1000);
        for (String phase : List.of("forward_s", "backward_s", "comm_s", "optimizer_s")) peer.put(phase, Double.NaN);
        r.add("ddp", peer);         // no phase breakdown (a peer read from its CSV): not in the table

        Table t = StepCosts.of(r);
        assertEquals(2, t.rowCount(), t.print());
        Row single = t.row(0), nccl = t.row(1);
        assertEquals("single", single.getString("route"));
        assertEquals(261 + 492 + 3 + 11 + 47, single.getDouble("step_us"), 1e-6);
        assertEquals(0, single.getDouble("extra_us"), 1e-9);
        assertEquals("nccl", nccl.getString("route"));
        assertEquals(2, nccl.getInt("ranks"));
        assertEquals(266, nccl.getDouble("forward_us"), 1e-6);
        assertEquals(511, nccl.getDouble("backward_us"), 1e-6);
        assertEquals(5, nccl.getDouble("d_forward_us"), 1e-6);
        assertEquals(19, nccl.getDouble("d_backward_us"), 1e-6);
        assertEquals(20, nccl.getDouble("d_comm_us"), 1e-6);
        assertEquals(-3, nccl.getDouble("d_optimizer_us"), 1e-6);
        assertEquals(2, nccl.getDouble("d_other_us"), 1e-6);
        assertEquals(5 + 19 + 20 - 3 + 2, nccl.getDouble("extra_us"), 1e-6);
    }
}
