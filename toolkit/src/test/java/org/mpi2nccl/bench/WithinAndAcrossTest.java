package org.mpi2nccl.bench;

import org.mpi2nccl.launch.nodes.SimulatedNodes;
import org.mpi2nccl.launch.nodes.NodesPlan;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.bench.BenchResults;
import org.mpi2nccl.bench.BenchRow;

/**
 * The CPU ring's all-reduce within one simulated node and across two, the link shaped to 100 Mbit/s (12.5 MB/s):
 * across nodes the bandwidth is capped by the link, within a node it is not. Needs root (skips and says so).
 */
class WithinAndAcrossTest {
    private static final double LINK_GBPS = 100e6 / 8 / 1e9;

    @Test
    void theRingIsCappedByTheLinkOnlyAcrossNodes() {
        SimulatedNodes.whyNotHere().ifPresent(why -> {
            System.out.println("skipped: " + why);
            Assumptions.abort(why);
        });
        BenchResults r;
        try (SimulatedNodes nodes = SimulatedNodes.start(NodesPlan.of(2).linkRate("100mbit"))) {
            r = WithinAndAcross.measure(nodes, "ring", List.of("-b", "64K", "-e", "4M", "-f", "64"), Duration.ofMinutes(2),
                    System.out::println);
        }
        System.out.print(r.text());
        assertTrue(r.allCorrect(), "every result right");
        BenchRow within = largest(r, "ring within a node");
        BenchRow across = largest(r, "ring across nodes");
        assertEquals(4L << 20, across.bytes());
        // 2 ranks: each sends the whole buffer once (half in reduce-scatter, half in all-gather): busbw <= link rate.
        assertTrue(across.busbw() <= LINK_GBPS * 1.3, "across nodes above the link's rate: " + across);
        assertTrue(across.busbw() >= LINK_GBPS * 0.3, "across nodes far below the link's rate: " + across);
        assertTrue(within.busbw() > across.busbw() * 1.5, "within a node not faster: " + within + " vs " + across);
    }

    private static BenchRow largest(BenchResults r, String label) {
        return r.rows().stream().filter(b -> b.communicator().equals(label))
                .max(java.util.Comparator.comparingLong(BenchRow::bytes)).orElseThrow(() -> new AssertionError("no rows " + label));
    }
}
