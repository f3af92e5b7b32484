package org.mpi2nccl.launch.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@code mpi2nccl nodes} on three nodes (a bridge joins them) in a JVM of its own, stopped with Ctrl-C (SIGINT) while
 * its ranks run: it removes every namespace and stops every process. Needs root (skips and says so).
 */
class NodesInterruptTest {
    @Test
    void ctrlCWhileThreeNodesRunRemovesEverything() throws Exception {
        SimulatedNodes.whyNotHere().ifPresent(why -> {
            System.out.println("skipped: " + why);
            Assumptions.abort(why);
        });
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process cli = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"), "org.mpi2nccl.cli.Main",
                "nodes", "--nodes", "3", "--timeout", "2m", "--", "mpjrun", "-np", "3", ReportThenSleep.class.getName())
                .redirectErrorStream(true).start();
        List<String> seen = new ArrayList<>();
        Set<String> sums = new TreeSet<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(cli.getInputStream(), StandardCharsets.UTF_8))) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            for (String line; sums.size() < 3 && System.nanoTime() < deadline && (line = r.readLine()) != null; ) {
                seen.add(line);
                if (line.matches("\\[rank \\d\\] on node\\d sum 6")) sums.add(line.replaceAll(".* on (node\\d).*", "$1"));
            }
            // Every rank reached the others through the bridge: the sum of rank+1 over 3 ranks, one rank per node.
            assertEquals(Set.of("node0", "node1", "node2"), sums, String.join("\n", seen));
            List<String> ns = NodeNetwork.existing().stream().filter(n -> n.startsWith("m2n" + cli.pid() + "-")).toList();
            assertEquals(4, ns.size(), "three nodes and the switch: " + ns);
            List<ProcessHandle> tree = cli.toHandle().descendants().toList();
            assertTrue(tree.size() >= 4, "daemons, the job and its rank JVMs run: " + tree.size());

            new ProcessBuilder("kill", "-INT", Long.toString(cli.pid())).start().waitFor();
            assertTrue(cli.waitFor(60, TimeUnit.SECONDS), "the command ended after Ctrl-C");
            r.lines().forEach(seen::add);
            assertEquals(List.of(), NodeNetwork.existing().stream().filter(n -> n.startsWith("m2n" + cli.pid() + "-")).toList(),
                    "namespaces left: " + String.join("\n", seen));
            for (ProcessHandle h : tree) {
                h.onExit().get(10, TimeUnit.SECONDS);
                assertTrue(!h.isAlive(), "left running: " + h.info().commandLine().orElse("?"));
            }
        } finally {
            cli.destroyForcibly();
        }
    }
}
