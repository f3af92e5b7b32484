package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The bandwidth job as the GPU scripts run it: several collectives in one MPJ job (the rank JVMs and the communicator
 * made once), here on MPJ multicore ranks over the host communicator.
 */
class BandwidthJobTest {
    @Test
    void severalCollectivesRunOneAfterTheOtherInOneJob() {
        BenchResults r = BandwidthJob.of("mpj").ranks(3).collective("allReduce,allGather,reduceScatter,broadcast")
                .sizes("8", "1K", 8).iterations(1, 2, 1, 0.5).timeout(Duration.ofSeconds(120)).run();
        Set<String> measured = r.rows().stream().map(BenchRow::collective).collect(Collectors.toSet());
        assertEquals(Set.of("allReduce", "allGather", "reduceScatter", "broadcast"), measured);
        assertTrue(r.allCorrect(), r.text());
        for (BenchRow row : r.rows()) {
            assertEquals(3, row.ranks(), row.toString());
        }
        List<String> order = r.rows().stream().map(BenchRow::collective).distinct().toList();
        assertEquals(List.of("allReduce", "allGather", "reduceScatter", "broadcast"), order, "in the order given");
    }

    @Test
    void aWrongCollectiveInTheListFailsBeforeAnyRankStarts() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BandwidthJob.of("mpj").ranks(2).collective("allReduce,allGathr").validate());
        assertTrue(e.getMessage().contains("allGathr"), e.getMessage());
    }
}
