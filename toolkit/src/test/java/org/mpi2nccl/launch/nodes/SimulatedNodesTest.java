package org.mpi2nccl.launch.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two simulated nodes on this machine (needs root: it says so and skips otherwise): MPJ ranks spread over them,
 * each with its node's environment; a failing and a hanging job; and after each, nothing left: no namespace, no
 * interface in this machine's own namespace, no process.
 */
class SimulatedNodesTest {
    private String linksBefore;

    @BeforeEach
    void needsRoot() {
        Ip.whyNot().ifPresent(why -> {
            System.out.println("skipped: " + why);
            Assumptions.abort(why);
        });
        linksBefore = links();
    }

    @Test
    void fourRanksOverTwoNodesEachWithItsNodesEnvironment() {
        SimulatedNodes nodes = SimulatedNodes.start(NodesPlan.of(2).gpusPerNode(1));
        SimulatedNodes.NodeRun run;
        try {
            run = nodes.run(List.of("mpjrun", "-np", "4", "--timeout", "60s", WhereAmI.class.getName()),
                    Duration.ofSeconds(90), null);
        } finally {
            nodes.close();
        }
        System.out.println(run.text());
        assertEquals(0, run.exitCode(), run.text());
        Map<Integer, String> where = new TreeMap<>();
        Matcher m = Pattern.compile("rank (\\d) of 4 on (node\\d) \\(net:\\[\\d+\\]\\): NCCL_HOSTID=(\\S+) "
                + "NCCL_SOCKET_IFNAME=eth1 CUDA_VISIBLE_DEVICES=(\\d); sum of rank\\+1 = 10").matcher(run.text());
        while (m.find()) where.put(Integer.parseInt(m.group(1)), m.group(2) + " " + m.group(3) + " gpu" + m.group(4));
        // MPJ deals ranks out in blocks: 0,1 on the first node, 2,3 on the second; each node its own id and GPU.
        assertEquals(Map.of(0, "node0 node0 gpu0", 1, "node0 node0 gpu0", 2, "node1 node1 gpu1", 3, "node1 node1 gpu1"),
                where, run.text());
        assertNothingLeft(nodes);
    }

    @Test
    void aJobOnAnAddressNoNodeHasFailsWithItsNameAndLeavesNothing() throws Exception {
        SimulatedNodes nodes = SimulatedNodes.start(NodesPlan.of(2));
        SimulatedNodes.NodeRun run;
        try {
            Path wrong = Files.writeString(nodes.file("machines.wrong"), "10.211.0.1\n10.211.0.9\n");
            run = nodes.run(List.of("mpjrun", "-np", "2", "--timeout", "40s", "--machines", wrong.toString(),
                    WhereAmI.class.getName()), Duration.ofSeconds(60), null);
        } finally {
            nodes.close();
        }
        System.out.println(run.text());
        assertFalse(run.timedOut(), run.text());
        assertTrue(run.exitCode() != 0, run.text());
        assertTrue(run.text().contains("10.211.0.9"), "the error names the address: " + run.text());
        assertNothingLeft(nodes);
    }

    @Test
    void aJobPastItsTimeoutIsStoppedAndLeavesNothing() {
        SimulatedNodes nodes = SimulatedNodes.start(NodesPlan.of(2));
        SimulatedNodes.NodeRun run;
        try {
            // The job itself would wait 10 minutes; the nodes' own limit stops it first, once its ranks run (they
            // report about 2 s after the start with other tests running beside them; the limit leaves three times that).
            run = nodes.run(List.of("mpjrun", "-np", "2", "--timeout", "10m", ReportThenSleep.class.getName()),
                    Duration.ofSeconds(6), null);
            assertTrue(nodes.pids().size() >= 2, "daemons and the command were seen");
        } finally {
            nodes.close();
        }
        assertTrue(run.timedOut(), run.text());
        assertTrue(run.text().contains("[rank 0] on node0 sum 3") && run.text().contains("[rank 1] on node1 sum 3"),
                "both ranks ran, one on each node, when the limit stopped them: " + run.text());
        assertNothingLeft(nodes);
    }

    private void assertNothingLeft(SimulatedNodes nodes) {
        for (String ns : ((NodeNetwork) nodes.placement()).namespaces()) fail("namespace " + ns + " still listed");
        List<String> ours = NodeNetwork.existing().stream().filter(n -> n.startsWith("m2n" + ProcessHandle.current().pid() + "-")).toList();
        assertEquals(List.of(), ours, "namespaces left");
        assertEquals(linksBefore, links(), "interfaces of this machine's own namespace");
        List<Long> alive = nodes.pids().stream().filter(p -> ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false)).toList();
        assertEquals(List.of(), alive, "processes left");
        assertEquals(List.of(), ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
                .map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList(), "processes left under the test JVM");
        assertFalse(Files.exists(nodes.machinesFile()), "job files deleted");
    }

    private static void fail(String what) {
        throw new AssertionError(what);
    }

    private static String links() {
        return Ip.tryRun("ip", "-o", "link").output().replaceAll("(?m)^\\d+: ", "").lines()
                .map(l -> l.split(":")[0]).sorted().toList().toString();
    }
}
