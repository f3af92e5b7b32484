package org.mpi2nccl.launch.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Lesson 08's nodes on a lab server: what is asked of Slurm, how a refusal reads, and (where Slurm has the lab's
 * partition of nodes, as after ./build.sh lab start) ranks on both nodes through Slurm, and nothing held after.
 */
class SlurmNodesTest {
    @Test
    void theAllocationHoldsTheWholePartitionUntilItsHolderEnds() {
        List<String> salloc = SlurmNodeAllocation.salloc(NodesPlan.of(2));
        assertTrue(salloc.containsAll(List.of("--partition=nodes", "--nodes=2", "--exclusive")), salloc.toString());
        assertTrue(salloc.stream().anyMatch(a -> a.startsWith("--immediate=")), "salloc gives up, it does not wait for ever");
        assertTrue(salloc.get(salloc.size() - 1).endsWith("exec cat > /dev/null"), "the allocation lives while our pipe is open");
    }

    @Test
    void aRefusalSaysWhoToWaitFor() {
        String busy = SlurmNodeAllocation.refusal(List.of("salloc: error: Unable to allocate resources: Immediate execution impossible"));
        assertTrue(busy.contains("another student") && busy.contains("squeue --partition=nodes") && busy.contains("again"), busy);
        String other = SlurmNodeAllocation.refusal(List.of("salloc: error: Invalid partition name specified"));
        assertTrue(other.contains("Invalid partition") && other.contains("lab status"), other);
    }

    @Test
    void ranksRunOnBothNodesAsStepsOfOneAllocation() throws Exception {
        NodesPlan plan = NodesPlan.of(2);
        SlurmNodeAllocation.whyNot(plan).ifPresent(why -> {
            System.out.println("skipped: " + why);
            Assumptions.abort(why);
        });
        SimulatedNodes nodes = SimulatedNodes.startUnderSlurm(plan);
        String job = ((SlurmNodeAllocation) nodes.placement()).jobId();
        SimulatedNodes.NodeRun run;
        SimulatedNodes.NodeRun addr;
        try {
            assertEquals(List.of(job), squeue(), "squeue lists the allocation while the nodes are held");
            run = nodes.run(List.of("mpjrun", "-np", "4", "--timeout", "60s", WhereAmI.class.getName()), Duration.ofSeconds(90), null);
            addr = nodes.runOn(1, List.of("ip", "-o", "-4", "addr", "show", "eth1"), Map.of(), Duration.ofSeconds(30), null);
        } finally {
            nodes.close();
        }
        System.out.println(run.text());
        assertEquals(0, run.exitCode(), run.text());
        Map<Integer, String> where = new TreeMap<>();
        Matcher m = Pattern.compile("rank (\\d) of 4 on (node\\d) \\(net:\\[\\d+\\]\\): NCCL_HOSTID=(\\S+) "
                + "NCCL_SOCKET_IFNAME=eth1.*sum of rank\\+1 = 10").matcher(run.text());
        while (m.find()) where.put(Integer.parseInt(m.group(1)), m.group(2) + " " + m.group(3));
        assertEquals(Map.of(0, "node0 node0", 1, "node0 node0", 2, "node1 node1", 3, "node1 node1"), where, run.text());
        assertTrue(addr.text().contains(plan.address(1) + "/24"), "node1's cluster address is lesson 08's: " + addr.text());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!squeue().isEmpty() && System.nanoTime() < deadline) Thread.sleep(200);
        assertEquals(List.of(), squeue(), "the nodes are given back when closed");
    }

    /** This user's jobs in the nodes' partition. */
    private static List<String> squeue() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("squeue", "--noheader", "--partition=" + SlurmNodeAllocation.PARTITION,
                "--user=" + System.getProperty("user.name"), "--format=%i").start();
        p.waitFor(15, TimeUnit.SECONDS);
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                .filter(l -> !l.isEmpty()).toList();
    }
}
