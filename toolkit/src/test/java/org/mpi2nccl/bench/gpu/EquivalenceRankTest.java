package org.mpi2nccl.bench.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.parallel.DataParallel;
import org.mpi2nccl.parallel.EquivalenceCheck;
import org.mpi2nccl.parallel.gpu.GpuOptions;

/** The equivalence rank program's {@code key=value} arguments, parsed by picocli, as the tests and GPU scripts pass them. */
class EquivalenceRankTest {
    @Test
    void noArgumentsMeanTheStepsDefaults() {
        EquivalenceRank.Args a = EquivalenceRank.parse();
        assertEquals(DataParallel.Options.defaults(), a.dataParallel());
        assertEquals(GpuOptions.defaults(), a.gpu());
        EquivalenceCheck.Setup s = a.setup();
        assertEquals("mlp", s.model());
        assertEquals(192, s.data().size());
        assertEquals(Path.of("."), a.out);
        assertNull(a.timeline, "no timeline unless asked for");
    }

    @Test
    void theScriptsArgumentsBecomeTheSettings() {
        EquivalenceRank.Args a = EquivalenceRank.parse("route=nccl", "device=cuda", "model=cnn", "examples=96", "batch=12",
                "steps=3", "seed=5", "lr=0.05", "overlap=false", "bucket-bytes=2048", "cuda-graphs=true",
                "graph-collectives=false", "last-bucket-bytes=512", "overlap-ctas=2", "out=/x/run", "timeline=/x/t.json");
        assertEquals("nccl", a.route);
        assertEquals("cuda", a.device);
        assertEquals(new DataParallel.Options(2048, false), a.dataParallel());
        assertEquals(new GpuOptions(true, false, 512, 2), a.gpu());
        EquivalenceCheck.Setup s = a.setup();
        assertEquals("cnn", s.model());
        assertEquals(96, s.data().size());
        assertEquals(12, s.globalBatch());
        assertEquals(3, s.steps());
        assertEquals(5, s.seed());
        assertEquals(0.05f, s.lr());
        assertEquals(Path.of("/x/run"), a.out);
        assertEquals(Path.of("/x/t.json"), a.timeline);
    }

    @Test
    void aValueThatDoesNotParseIsNamedInOneLine() {
        String m = assertThrows(IllegalArgumentException.class, () -> EquivalenceRank.parse("steps=ten")).getMessage();
        assertTrue(m.startsWith("EquivalenceRank: ") && m.contains("'steps'") && m.contains("'ten'"), m);
        assertFalse(m.contains("\n"), m);
        String data = assertThrows(IllegalArgumentException.class, () -> EquivalenceRank.parse("data=cifar").setup()).getMessage();
        assertTrue(data.contains("cifar"), data);
    }

    @Test
    void anUnknownKeyIsNamedWithTheKeysThereAre() {
        String m = assertThrows(IllegalArgumentException.class, () -> EquivalenceRank.parse("route=mpi", "bucket-size=512"))
                .getMessage();
        assertTrue(m.contains("'bucket-size=512'") && m.contains("bucket-bytes") && m.contains("timeline-steps"), m);
        assertFalse(m.contains("\n"), m);
        String twice = assertThrows(IllegalArgumentException.class, () -> EquivalenceRank.parse("steps=2", "steps=3")).getMessage();
        assertTrue(twice.contains("'steps'"), twice);
    }
}
