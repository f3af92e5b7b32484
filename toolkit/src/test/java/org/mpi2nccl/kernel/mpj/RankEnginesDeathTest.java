package org.mpi2nccl.kernel.mpj;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mpi2nccl.kernel.jshell.CellError;
import org.mpi2nccl.kernel.jshell.JShellEvaluator;
import org.mpi2nccl.launch.MpjDevice;

/**
 * A rank engine killed while its cell runs, through the kernel's Java API on CPU niodev engines (one JVM a rank): the
 * cell ends with an engine error naming the dead rank and saying the others were stopped, and the engines are closed.
 */
@Timeout(240)
class RankEnginesDeathTest {
    private static final RankOutput QUIET = new RankOutput() {
        @Override
        public void stream(int rank, String stream, String text) {
        }

        @Override
        public void display(int rank, DisplayData data) {
        }

        @Override
        public void update(int rank, String displayId, DisplayData data) {
        }

        @Override
        public void note(String text) {
        }
    };

    @Test
    void aKilledRankIsNamedAndTheOthersAreStopped() throws Exception {
        try (JShellEvaluator splitter = JShellEvaluator.start(ClassLoader.getSystemClassLoader(), List.of(), List.of());
             RankEngines engines = RankEngines.start(3, MpjDevice.NIODEV, List.of(), System.out)) {
            String cell = "if (rank == 1) new ProcessBuilder(\"kill\", \"-9\", \"\" + ProcessHandle.current().pid()).start().waitFor();\n"
                    + "mpi.MPI.COMM_WORLD.Barrier();";
            CellError e = assertThrows(CellError.class, () -> engines.run(splitter.split(cell, 1), QUIET));
            assertTrue(e.getMessage().contains("rank 1 died while running the cell")
                    && e.getMessage().contains("the other ranks ([0, 2]) were stopped"), e.getMessage());
            assertTrue(engines.isClosed(), "the engines are closed after a death");
        }
    }
}
