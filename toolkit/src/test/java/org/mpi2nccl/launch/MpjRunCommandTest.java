package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.cli.Main;

/** The mpjrun and run subcommands, through the toolkit's command line. */
class MpjRunCommandTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void nothingLeft() {
        Leftovers.assertNoDescendants();
    }

    private int cli(String... args) {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            return Main.run(args);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
            System.out.print(out.toString(StandardCharsets.UTF_8));
            System.out.print(err.toString(StandardCharsets.UTF_8));
        }
    }

    @Test
    void mpjrunStreamsTaggedLinesAndPrintsTheReports() {
        int status = cli("mpjrun", "-np", "3", "--device", "niodev", "--timeout", "60s",
                CollectivesRank.class.getName(), "x", "y");
        String o = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        for (int r = 0; r < 3; r++) assertTrue(o.contains("[rank " + r + "] rank " + r + " of 3 args x,y"), o);
        assertTrue(o.contains("mpjrun: 3 ranks (niodev) finished in"), o);
        assertTrue(o.contains("allreduce"), "report table printed: " + o);
        assertTrue(!o.contains("Starting process"), "MPJ's per-rank chatter is not shown: " + o);
    }

    @Test
    void mpjrunFailsWithTheCauseAndANonZeroStatus() {
        assertEquals(1, cli("mpjrun", "-np", "2", "--timeout", "60s", ThrowingRank.class.getName()));
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.contains("mpjrun: 2-rank multicore job " + ThrowingRank.class.getName()
                + " failed: rank 1 threw java.lang.IllegalStateException: rank one gives up"), e);
        assertTrue(e.contains("[rank 1] java.lang.IllegalStateException: rank one gives up"), "trace on stderr: " + e);

        err.reset();
        assertEquals(2, cli("mpjrun", "-np", "0", CollectivesRank.class.getName()));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("mpjrun: number of ranks must be at least 1"));

        err.reset();
        assertEquals(1, cli("mpjrun", "-np", "2", "--timeout", "3s", HangingRank.class.getName()));
        String t = err.toString(StandardCharsets.UTF_8);
        assertTrue(t.matches("(?s).*timed out after 3 s: ranks \\[(0, )?1\\] had not finished.*"), t);
    }

    @Test
    void runPrintsThePartialSumTable() {
        assertEquals(0, cli("partial-sum", "-np", "4", "-n", "1000"));
        String o = out.toString(StandardCharsets.UTF_8);
        assertTrue(o.contains("1..250"), o);
        assertTrue(o.contains("751..1000"), o);
        assertTrue(o.contains("OK: every rank's Allreduce total equals 500500"), o);
        // 1+..+250 = 31375, and rank 3's block 751..1000 adds up to 218875
        assertTrue(o.contains("31375") && o.contains("218875"), o);
    }
}
