package org.mpi2nccl.kernel.mpj;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.cuda.GpuTests;
import org.mpi2nccl.kernel.jshell.JShellEvaluator;
import org.mpi2nccl.launch.MpjDevice;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * On a GPU machine each rank engine gets its own GPU: 2 engines started through the kernel's Java API (as
 * {@code %mpj start -np 2} does on a GPU host: niodev) report GPU {@code rank % gpus} with its name, and each
 * rank's cells see it: the {@code gpu} variable, {@link EngineRank#device()} and the CUDA runtime's current
 * device on the cell's thread. Needs no Python or Jupyter (the GPU machine has none).
 */
@Tag("gpu")
class RankEnginesGpuTest {
    private static final String CELL = String.join("\n",
            "int[] current = {-1};",
            "org.bytedeco.cuda.global.cudart.cudaGetDevice(current);",
            "\"rank=\" + rank + \" gpu=\" + gpu + \" device=\" + EngineRank.device() + \" current=\" + current[0]"
                    + " + \" name=\" + EngineRank.gpuName()");

    @Test
    void eachRankReportsItsOwnGpu() throws Exception {
        GpuTests.requireGpu();
        int gpus = Cuda.deviceCount();
        List<String> printed = new ArrayList<>();
        RankOutput output = new RankOutput() {
            @Override
            public void stream(int rank, String stream, String text) {
                printed.add("[rank " + rank + " " + stream + "] " + text);
            }

            @Override
            public void display(int rank, DisplayData data) {
            }

            @Override
            public void update(int rank, String displayId, DisplayData data) {
            }

            @Override
            public void note(String text) {
                printed.add(text);
            }
        };
        try (JShellEvaluator splitter = JShellEvaluator.start(ClassLoader.getSystemClassLoader(), List.of(), List.of());
             RankEngines engines = RankEngines.start(2, MpjDevice.NIODEV, List.of(), System.out)) {
            for (RankEngines.Rank r : engines.ranks()) {
                System.out.println("rank " + r.rank() + " (pid " + r.pid() + "): " + r.gpuLabel() + " " + r.gpuNote());
                assertEquals(r.rank() % gpus, r.gpu(), "rank " + r.rank() + "'s GPU with " + gpus + " GPU(s)");
                assertEquals(Cuda.device(r.gpu()).name, r.gpuName(), "rank " + r.rank() + "'s GPU name");
                assertEquals("", r.gpuNote(), "rank " + r.rank() + " could not make its GPU current");
            }
            RankResults results = engines.run(splitter.split("import org.mpi2nccl.kernel.mpj.EngineRank;\n" + CELL, 1),
                    output);
            assertFalse(results.failed(), () -> results.combinedError().getMessage() + "\n" + printed);
            Map<Integer, DisplayData> values = results.values();
            for (int rank = 0; rank < 2; rank++) {
                String seen = String.valueOf(values.get(rank).getData(
                        io.github.spencerpark.jupyter.kernel.display.mime.MIMEType.TEXT_PLAIN));
                System.out.println("rank " + rank + " cell: " + seen);
                int g = rank % gpus;
                String expected = "rank=" + rank + " gpu=" + g + " device=cuda:" + g + " current=" + g
                        + " name=" + Cuda.device(g).name;
                assertEquals(expected, seen.replace("\"", ""), "what rank " + rank + "'s cell sees");
            }
        }
    }
}
