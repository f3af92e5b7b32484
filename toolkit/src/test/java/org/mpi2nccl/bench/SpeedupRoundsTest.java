package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.parallel.gpu.Route;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;

/**
 * An experiment run in rounds: the summary pools them (median epoch over every round), gives the speedup range of
 * single rounds against the baseline's same round, averages the final accuracy, and the per-step table leaves out
 * the first epoch of every round. Numbers chosen so that each figure is known.
 */
class SpeedupRoundsTest {
    private static Map<String, Object> epoch(int ranks, int round, int epoch, double seconds, double testAcc, double forwardUs) {
        Map<String, Object> m = new HashMap<>();
        m.put("ranks", ranks);
        m.put("round", round);
        m.put("epoch", epoch);
        m.put("device", "test");
        m.put("steps", 100L);
        m.put("samples", 60_000L);
        m.put("epoch_s", seconds);
        m.put("test_acc", testAcc);
        m.put("forward_s", forwardUs * 100 * 1e-6);
        m.put("backward_s", 0.0);
        m.put("comm_s", 0.0);
        m.put("optimizer_s", 0.0);
        return m;
    }

    /** Round 2 finds the machine slower for the single rank: one round alone would overstate the speedup. */
    static SpeedupResults threeRounds() {
        SpeedupResults r = new SpeedupResults("test", "test");
        double[][] single = {{0.41, 0.40, 0.40}, {0.45, 0.44, 0.44}, {0.41, 0.40, 0.40}};
        double[][] nccl = {{0.22, 0.21, 0.21}, {0.22, 0.21, 0.21}, {0.21, 0.20, 0.20}};
        double[] singleAcc = {0.80, 0.82, 0.81}, ncclAcc = {0.805, 0.815, 0.83};
        for (int k = 0; k < 3; k++) {
            for (int e = 0; e < 3; e++) {
                // forward: 9000 us in each round's first epoch (left out of the per-step table), else 300 + round
                r.add("single", epoch(1, k + 1, e + 1, single[k][e], e == 2 ? singleAcc[k] : 0.5, e == 0 ? 9000 : 300 + k));
            }
            for (int e = 0; e < 3; e++) r.add("nccl", epoch(2, k + 1, e + 1, nccl[k][e], e == 2 ? ncclAcc[k] : 0.5, e == 0 ? 9000 : 310));
        }
        return r;
    }

    @Test
    void theSummaryPoolsTheRoundsAndGivesOneRoundsRange() {
        SpeedupResults r = threeRounds();
        assertEquals(3, r.rounds());
        Table s = r.summary();
        Row nccl = s.row(1);
        assertEquals("nccl", nccl.getString("route"));
        assertEquals(9, nccl.getInt("epochs"));
        assertEquals(0.21, nccl.getDouble("epoch_s"), 1e-12);                 // median of all nine epochs
        assertEquals(0.41 / 0.21, nccl.getDouble("speedup"), 1e-9);         // pooled medians: 0.41 s and 0.21 s
        assertEquals(0.40 / 0.21, nccl.getDouble("speedup_lo"), 1e-9);      // round 1
        assertEquals(0.44 / 0.21, nccl.getDouble("speedup_hi"), 1e-9);      // round 2, the slow single rank
        assertEquals(0.40 / 0.20, nccl.getDouble("speedup_paired"), 1e-9);  // round 3's, the middle of 1.905, 2.095, 2.0
        assertEquals(81.67, 100 * nccl.getDouble("test_acc"), 0.01);         // the final epochs' mean
        assertEquals(0.6667, nccl.getDouble("acc_vs_1rank_points"), 1e-3);
        assertEquals(1.0, s.row(0).getDouble("speedup_lo"), 1e-12);
    }

    /**
     * A peer whose host made its second round faster for 1 and 2 GPUs alike (PyTorch DDP's CIFAR-shaped epochs on
     * 2x H200): the pooled medians pair round 1's 1-GPU epochs with round 2's 2-GPU ones and give 1.972x, above both
     * rounds' own 1.805x and 1.725x; the paired median stays between them.
     */
    @Test
    void aPeerDriftingBetweenRoundsIsJudgedRoundByRound() {
        SpeedupResults r = new SpeedupResults("test", "test");
        double[][] one = {{1.46, 1.54, 1.48}, {1.38, 1.19, 1.15}}, two = {{0.84, 0.82, 0.75}, {0.67, 0.69, 0.69}};
        for (int k = 0; k < 2; k++) {
            for (int e = 0; e < 3; e++) r.add("ddp", epoch(1, k + 1, e + 1, one[k][e], 0.1, 300));
            for (int e = 0; e < 3; e++) r.add("ddp", epoch(2, k + 1, e + 1, two[k][e], 0.1, 300));
        }
        Row ddp = r.summary().row(1);
        assertEquals(1.42 / 0.72, ddp.getDouble("speedup"), 1e-9);
        assertEquals(1.19 / 0.69, ddp.getDouble("speedup_lo"), 1e-9);
        assertEquals(1.48 / 0.82, ddp.getDouble("speedup_hi"), 1e-9);
        assertTrue(ddp.getDouble("speedup") > ddp.getDouble("speedup_hi"), "pooled above every round: " + ddp.getDouble("speedup"));
        assertEquals((1.19 / 0.69 + 1.48 / 0.82) / 2, ddp.getDouble("speedup_paired"), 1e-9);
    }

    /** The lessons' view: a few columns, units in the headers, 3 significant digits; the full table stays as it was. */
    @Test
    void theCompactViewHasAFewRoundedColumnsWithUnits() {
        SpeedupResults r = threeRounds();
        Table c = r.compact();
        assertEquals(List.of("route", "ranks", "epoch (s)", "step (ms)", "comm (ms/step)", "speedup (x)", "speedup range (x)",
                "test acc (%)"), c.columnNames());
        Row nccl = c.row(1);
        assertEquals("nccl", nccl.getString("route"));
        assertEquals(0.21, nccl.getDouble("epoch (s)"), 1e-12);
        assertEquals(2.1, nccl.getDouble("step (ms)"), 1e-12);              // 0.21 s over 100 steps
        assertEquals(2.0, nccl.getDouble("speedup (x)"), 1e-12);            // the paired median
        assertEquals("1.9 to 2.1", nccl.getString("speedup range (x)"));    // 1.905 and 2.095 to 3 digits
        assertEquals(81.7, nccl.getDouble("test acc (%)"), 1e-12);          // 81.67 to 3 digits
        assertEquals(0.0, nccl.getDouble("comm (ms/step)"), 1e-12);
        assertTrue(r.summary().columnCount() > 2 * c.columnCount(), "the full table holds more: " + r.summary().columnNames());
        Table steps = StepCosts.compact(r);
        assertEquals(List.of("route", "ranks", "step (us)", "compute (us)", "comm not hidden (us)", "beyond 1 rank (us)"),
                steps.columnNames());
        assertEquals(301, steps.row(0).getDouble("compute (us)"), 1e-6);
    }

    @Test
    void thePerStepTableLeavesOutTheFirstEpochOfEveryRound() {
        Table t = StepCosts.of(threeRounds());
        assertEquals(301, t.row(0).getDouble("forward_us"), 1e-6);          // (300 + 301 + 302) / 3; no 9000 us epoch
        assertEquals(9, t.row(1).getDouble("d_forward_us"), 1e-6);
    }

    @Test
    void theTerminalTableSaysEachRoundsRange() {
        String text = SpeedupReport.text(threeRounds());
        assertTrue(text.contains("3 rounds, every run once per round in turn"), text);
        assertTrue(text.contains(String.format(java.util.Locale.ROOT, "nccl       x2   %.3fx to %.3fx, median %.3fx", 0.40 / 0.21,
                0.44 / 0.21, 0.40 / 0.20)), text);
        assertTrue(!SpeedupReport.text(oneRound()).contains("rounds"), "one round: no round lines");
    }

    private static SpeedupResults oneRound() {
        SpeedupResults r = new SpeedupResults("test", "test");
        r.add("single", epoch(1, 1, 1, 0.4, 0.8, 300));
        r.add("nccl", epoch(2, 1, 1, 0.2, 0.8, 300));
        return r;
    }

    @Test
    void roundsSurviveTheCsvAndOlderFilesAreOneRound(@TempDir Path dir) throws Exception {
        SpeedupReport.write(threeRounds(), dir.resolve("report"), "test");
        SpeedupResults back = SpeedupResults.fromCsv(List.of(dir.resolve("report/epochs.csv")));
        assertEquals(3, back.rounds());
        assertEquals(0.40 / 0.21, back.summary().row(1).getDouble("speedup_lo"), 1e-9);
        // a per-epoch file written before rounds existed (no round column) reads as one round
        Path old = dir.resolve("old.csv");
        Files.writeString(old, "route,ranks,device,epoch,epoch_s,samples,test_acc\nsingle,1,t,1,0.4,60000,0.8\nnccl,2,t,1,0.2,60000,0.8\n");
        SpeedupResults o = SpeedupResults.fromCsv(List.of(old));
        assertEquals(1, o.rounds());
        assertEquals(2.0, o.summary().row(1).getDouble("speedup"), 1e-9);
        assertEquals(2.0, o.summary().row(1).getDouble("speedup_lo"), 1e-9);
    }

    @Test
    void zeroRoundsIsRefusedWithTheOptionsName() {
        SpeedupExperiment e = new SpeedupExperiment(SpeedupExperiment.defaults().config(), List.of(Route.MPI), List.of(1));
        IllegalArgumentException x = assertThrows(IllegalArgumentException.class, () -> e.rounds(0));
        assertTrue(x.getMessage().contains("--rounds must be at least 1"), x.getMessage());
    }
}
