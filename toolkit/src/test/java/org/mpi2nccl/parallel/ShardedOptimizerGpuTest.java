package org.mpi2nccl.parallel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.parallel.gpu.TwoGpuJobs;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;

/**
 * ZeRO stage 1 on GPUs: 2 niodev ranks, one GPU each, NCCL's reduce-scatter and all-gather; Adam sharded over the
 * ranks must leave the parameters of plain data parallelism (NCCL all-reduce, full Adam state on each GPU).
 */
@Tag("gpu")
class ShardedOptimizerGpuTest {
    @Test
    void adamShardedOverTwoGpusMatchesPlainDataParallel() throws Exception {
        TwoGpuJobs.requireTwoGpus();
        List<String> lines = new CopyOnWriteArrayList<>();
        JobResult r = Mpj.launch(ShardedGpuRank.class).ranks(2).device(MpjDevice.NIODEV).onLine(l -> {
            System.out.println(l);
            lines.add(String.valueOf(l));
        }).timeout(Duration.ofSeconds(180)).run();
        assertTrue(r.succeeded(), r.toString());
        int ranks = 0;
        for (String l : lines) {
            int at = l.indexOf("sharded vs plain ");
            if (at < 0) continue;
            double d = Double.parseDouble(l.substring(at + 17).split(" ")[0]);
            assertTrue(d < 1e-5, "sharded and plain differ by " + d + ": " + l);
            assertTrue(l.contains("over nccl"), l);
            ranks++;
        }
        assertEquals(2, ranks, "both ranks reported: " + lines);
    }
}
