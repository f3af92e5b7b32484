package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.Clique;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.ring.CpuClique;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.ThreadRanks;

/**
 * Lesson 04's bootstrap exercise on thread ranks with the CPU clique: the reference answer passes on every rank, and
 * each usual wrong bootstrap gets its explanation (on every rank, since the check compares all ranks' steps).
 */
class Lesson04Test {
    private static final CpuClique CLIQUE = CpuClique.withTimeout(Duration.ofSeconds(1));

    @BeforeAll
    static void notStrict() {
        assumeFalse("1".equals(System.getenv(Check.STRICT_ENV)), Check.STRICT_ENV + "=1: wrong answers throw");
    }

    /** One student attempt per rank; {@code world} stands for MPI.COMM_WORLD (its broadcast for Bcast). */
    private static List<Check> attempt(int size, Function<Communicator, Lesson04.Bootstrap> student) {
        return ThreadRanks.run(size, b -> b.timeout(Duration.ofSeconds(30)), Duration.ofSeconds(60),
                w -> Lesson04.checkBootstrap(w, CLIQUE, student.apply(w)));
    }

    private static void bcast(Communicator world, byte[] id) {
        world.broadcast(HostBuffer.of(id), 0);
    }

    private static void allWrongSaying(List<Check> checks, String words) {
        for (Check c : checks) {
            assertFalse(c.passed(), c.toString());
            assertTrue(c.explanation().contains(words), "expected '" + words + "' in: " + c);
        }
    }

    @Test
    void theReferenceBootstrapPasses() throws Exception {
        for (int size : new int[] {1, 2, 3}) {
            List<Check> checks = attempt(size, w -> clique -> {
                byte[] id = new byte[Clique.ID_BYTES];
                if (w.rank() == 0) {
                    id = clique.uniqueId();
                }
                bcast(w, id);
                return clique.initRank(w.size(), id, w.rank());
            });
            for (Check c : checks) {
                assertTrue(c.passed(), c.toString());
                assertTrue(c.explanation().contains("as expected"), c.toString());
            }
        }
    }

    @Test
    void aBlankAnswerIsNotWrittenYet() throws Exception {
        allWrongSaying(attempt(2, w -> clique -> {
            throw new UnsupportedOperationException("write the bootstrap");
        }), "not written yet");
    }

    @Test
    void everyRankMakingItsOwnIdIsExplained() throws Exception {
        allWrongSaying(attempt(2, w -> clique -> clique.initRank(w.size(), clique.uniqueId(), w.rank())),
                "rank(s) [1] made their own id");
    }

    @Test
    void anIdThatWasNotBroadcastIsExplained() throws Exception {
        allWrongSaying(attempt(2, w -> clique -> {
            byte[] id = new byte[Clique.ID_BYTES];
            bcast(w, id);                                  // before rank 0 made it
            if (w.rank() == 0) {
                id = clique.uniqueId();
            }
            return clique.initRank(w.size(), id, w.rank());
        }), "rank(s) [1] passed 128 zero bytes");
    }

    @Test
    void argumentsInTheWrongOrderAreExplained() throws Exception {
        List<Check> swapped = attempt(2, w -> clique -> {
            byte[] id = w.rank() == 0 ? clique.uniqueId() : new byte[Clique.ID_BYTES];
            bcast(w, id);
            return clique.initRank(w.rank(), id, w.size());
        });
        allWrongSaying(swapped, "initRank(size, id, rank)");
        List<Check> reversed = attempt(2, w -> clique -> {
            byte[] id = w.rank() == 0 ? clique.uniqueId() : new byte[Clique.ID_BYTES];
            bcast(w, id);
            return clique.initRank(w.size(), id, w.size() - 1 - w.rank());
        });
        allWrongSaying(reversed, "rank 0 joined as rank 1");
    }

    @Test
    void returningSomethingElseIsExplained() throws Exception {
        allWrongSaying(attempt(2, w -> clique -> {
            byte[] id = w.rank() == 0 ? clique.uniqueId() : new byte[Clique.ID_BYTES];
            bcast(w, id);
            clique.initRank(w.size(), id, w.rank());
            return null;
        }), "returned null");
        allWrongSaying(attempt(2, w -> clique -> {
            byte[] id = w.rank() == 0 ? clique.uniqueId() : new byte[Clique.ID_BYTES];
            bcast(w, id);
            clique.initRank(w.size(), id, w.rank());
            return w;
        }), "another communicator");
    }

    @Test
    void extraIdsThatTheBroadcastOverwroteAreStillPointedOut() throws Exception {
        allWrongSaying(attempt(2, w -> clique -> {
            byte[] id = clique.uniqueId();
            bcast(w, id);
            return clique.initRank(w.size(), id, w.rank());
        }), "it works, because the broadcast overwrote their ids");
    }

    @Test
    void withoutAGpuTheLessonUsesTheCpuClique() {
        assumeFalse(Lesson04.hasGpu(), "a GPU is here");
        assertTrue(Lesson04.clique() instanceof CpuClique, Lesson04.clique().describe());
    }
}
