package org.mpi2nccl.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.Reduction;

/** The bandwidth rank program's {@code key=value} arguments, as {@link BandwidthJob} builds them and picocli parses them. */
class BandwidthRankMainTest {
    @Test
    void noArgumentsMeanTheBenchSpecDefaultsOnMpjAndTheRing() {
        BandwidthRankMain.Args a = BandwidthRankMain.parse(List.of());
        assertEquals(List.of("mpj", "ring"), a.comms);
        assertEquals(List.of(Collective.ALL_REDUCE), BandwidthRankMain.collectives(a));
        assertEquals(BenchSpec.defaults(), BandwidthRankMain.spec(a));
        assertEquals(null, a.maxHost, "host communicators capped at max unless max-host is given");
        assertEquals(Duration.ofSeconds(300), a.timeout);
    }

    @Test
    void theJobsArgumentsComeBackAsItsSettings() {
        BandwidthJob job = BandwidthJob.of("mpj", "naive").collective("broadcast,allGather").type("int32").op("max").root(1)
                .sizes("64", "4K", 4).maxHostBytes("1K").iterations(2, 7, 1, 0.5).inPlace(false).check(false);
        BandwidthRankMain.Args a = BandwidthRankMain.parse(job.rankArgs());
        assertEquals(List.of("mpj", "naive"), a.comms);
        assertEquals(List.of(Collective.BROADCAST, Collective.ALL_GATHER), BandwidthRankMain.collectives(a));
        BenchSpec s = BandwidthRankMain.spec(a);
        assertEquals(new BenchSpec(Collective.BROADCAST, DataType.INT32, Reduction.MAX, 1, 64, 4096, 4, 2, 7, 1, 0.5,
                false, true, false), s);
        assertEquals("1K", a.maxHost);
        assertTrue(job.rankArgs().contains("in-place=false"), "still the key=value words: " + job.rankArgs());
    }

    @Test
    void aValueThatDoesNotParseIsNamedInOneLine() {
        String m = assertThrows(IllegalArgumentException.class, () -> BandwidthRankMain.parse(List.of("iters=many"))).getMessage();
        assertTrue(m.startsWith("BandwidthRankMain: ") && m.contains("'iters'") && m.contains("'many'"), m);
        assertFalse(m.contains("\n"), m);
        String b = assertThrows(IllegalArgumentException.class, () -> BandwidthRankMain.parse(List.of("check=yes"))).getMessage();
        assertTrue(b.contains("'check'") && b.contains("'yes'"), "a boolean is true or false, nothing else: " + b);
    }

    @Test
    void anUnknownKeyIsNamedWithTheKeysThereAre() {
        String m = assertThrows(IllegalArgumentException.class, () -> BandwidthRankMain.parse(List.of("min=8", "iter=3")))
                .getMessage();
        assertTrue(m.contains("'iter=3'") && m.contains("iters") && m.contains("seconds-per-size"), m);
        assertFalse(m.contains("\n"), m);
        String notKeyValue = assertThrows(IllegalArgumentException.class, () -> BandwidthRankMain.parse(List.of("allReduce")))
                .getMessage();
        assertTrue(notKeyValue.contains("'allReduce'") && notKeyValue.contains("key=value"), notKeyValue);
    }
}
