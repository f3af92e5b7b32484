package org.mpi2nccl.parallel;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.bench.gpu.EquivalenceRank;
import org.mpi2nccl.parallel.gpu.TwoGpuJobs;
import org.mpi2nccl.data.SyntheticDataset;
import org.mpi2nccl.tensor.Device;

/**
 * The correctness proof on GPUs: 2 niodev ranks, one GPU each, gradients all-reduced by NCCL (and, for the
 * contrast, by the MPI route through host memory), against one GPU trained on the whole batch.
 */
@Tag("gpu")
class DataParallelGpuTest {
    @TempDir
    Path dir;

    /** Runs the check; returns the lines the ranks printed. */
    private List<String> check(String route, String model, String... extra) throws Exception {
        TwoGpuJobs.requireTwoGpus();
        EquivalenceCheck.Setup s = new EquivalenceCheck.Setup(model, new SyntheticDataset(192, new int[] {1, 6, 6}, 5, 11),
                24, 10, 3, 0.1f, 0.9f);
        float[] reference = EquivalenceCheck.singleRank(s, Device.cuda(0));
        Path out = Files.createDirectories(dir.resolve(route + "-" + model + extra.length));
        List<String> args = new ArrayList<>(List.of("route=" + route, "device=cuda", "model=" + model, "examples=192", "batch=24",
                "steps=10", "seed=3", "out=" + out));
        args.addAll(List.of(extra));
        List<String> lines = TwoGpuJobs.runEquivalenceRanks(args);
        if (args.contains("cuda-graphs=true")) {
            for (int rank = 0; rank < 2; rank++) {
                String said = "rank " + rank + ": ";
                String line = lines.stream().filter(l -> l.contains(said) && l.contains("steps replayed from CUDA graphs")).findFirst()
                        .orElseThrow(() -> new AssertionError("rank did not report its CUDA graph replays: " + lines));
                assertTrue(!line.contains("graphs off") && !line.contains(said + "0 of"), "graphs were used: " + line);
            }
        }
        for (int rank = 0; rank < 2; rank++) {
            float[] p = EquivalenceRank.read(out.resolve("rank-" + rank + ".f32"));
            double d = EquivalenceCheck.relativeDifference(p, reference);
            System.out.printf("%s route, %s, 2 GPUs with batch 12 each: rank %d vs one GPU with batch 24: max relative difference %.2e%n",
                    route, model, rank, d);
            assertTrue(d < 1e-4, route + " rank " + rank + ": " + d);
        }
        double between = EquivalenceCheck.relativeDifference(EquivalenceRank.read(out.resolve("rank-1.f32")),
                EquivalenceRank.read(out.resolve("rank-0.f32")));
        assertTrue(between == 0, "both GPUs hold the same parameters, got a difference of " + between);
        return lines;
    }

    /** Eager steps; the last with overlap off and small buckets: every bucket left after backward, launched as one NCCL group. */
    @Test
    void ncclOnTwoGpusMatchesOneGpuWithTheWholeBatch() throws Exception {
        check("nccl", "cnn");
        check("nccl", "mlp");
        check("nccl", "cnn", "overlap=false", "bucket-bytes=2048");
    }

    /**
     * Steps replayed from CUDA graphs with NCCL's all-reduces recorded too (the default), with small buckets (several
     * all-reduces inside backward's graph) and without overlap (all of them in the tail's graph, as one NCCL group).
     */
    @Test
    void ncclWithCudaGraphsOnTwoGpusMatchesOneGpuWithTheWholeBatch() throws Exception {
        check("nccl", "cnn", "cuda-graphs=true", "bucket-bytes=2048");
        check("nccl", "cnn", "cuda-graphs=true", "overlap=false");
    }

    /** The same with the all-reduces left out of the graphs: backward cut into pieces, each bucket reduced between them. */
    @Test
    void ncclCalledBetweenCudaGraphsOnTwoGpusMatchesOneGpuWithTheWholeBatch() throws Exception {
        check("nccl", "cnn", "cuda-graphs=true", "graph-collectives=false", "bucket-bytes=2048");
        check("nccl", "cnn", "cuda-graphs=true", "graph-collectives=false", "overlap=false");
    }

    /**
     * The buckets launched beside backward through a second communicator of at most 2 CTAs (ncclCommSplit), the tail
     * through the first, and the first layers alone in a small last bucket: eager, then recorded into graphs.
     */
    @Test
    void ncclWithFewerCtasBesideBackwardAndASmallLastBucketMatchesOneGpu() throws Exception {
        for (String graphs : List.of("cuda-graphs=false", "cuda-graphs=true")) {
            List<String> said = check("nccl", "cnn", graphs, "bucket-bytes=2048", "last-bucket-bytes=512", "overlap-ctas=2");
            for (int rank = 0; rank < 2; rank++) {
                String who = "rank " + rank + ": DataParallel[";
                String line = said.stream().filter(l -> l.contains(who)).findFirst()
                        .orElseThrow(() -> new AssertionError("rank did not describe its DataParallel: " + said));
                assertTrue(line.matches(".* [1-9][0-9]* all-reduce calls beside backward through a communicator of at most 2 CTAs.*"),
                        "the CTA-limited communicator was used: " + line);
            }
        }
    }

    @Test
    void mpiRouteOnTwoGpusMatchesOneGpuWithTheWholeBatch() throws Exception {
        check("mpi", "cnn");
    }
}
