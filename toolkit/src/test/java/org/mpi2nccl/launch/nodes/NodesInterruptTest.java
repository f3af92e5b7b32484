package org.mpi2nccl.launch.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
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
        // Its output is read all along on a thread of its own: a command whose pipe fills up cannot end.
        List<String> seen = new CopyOnWriteArrayList<>();
        Set<String> sums = new ConcurrentSkipListSet<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(cli.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    seen.add(line);
                    if (line.matches("\\[rank \\d\\] on node\\d sum 6")) sums.add(line.replaceAll(".* on (node\\d).*", "$1"));
                }
            } catch (IOException stopped) {
                // the command was killed
            }
        }, "nodes-output");
        reader.setDaemon(true);
        reader.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (sums.size() < 3 && cli.isAlive() && System.nanoTime() < deadline) Thread.sleep(50);
            // Every rank reached the others through the bridge: the sum of rank+1 over 3 ranks, one rank per node.
            assertEquals(Set.of("node0", "node1", "node2"), sums, String.join("\n", seen));
            List<String> ns = NodeNetwork.existing().stream().filter(n -> n.startsWith("m2n" + cli.pid() + "-")).toList();
            assertEquals(4, ns.size(), "three nodes and the switch: " + ns);
            List<ProcessHandle> tree = cli.toHandle().descendants().toList();
            assertTrue(tree.size() >= 4, "daemons, the job and its rank JVMs run: " + tree.size());

            new ProcessBuilder("kill", "-INT", Long.toString(cli.pid())).start().waitFor();
            if (!cli.waitFor(60, TimeUnit.SECONDS)) {
                fail("the command did not end within 60 s of Ctrl-C; its output:\n" + String.join("\n", seen)
                        + "\nits threads:\n" + threadsOf(cli.pid()));
            }
            reader.join(10_000);
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

    /** The thread dump of a JVM (jcmd), to show where a stuck shutdown waits. */
    private static String threadsOf(long pid) throws Exception {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "Thread.print").redirectErrorStream(true).start();
        String dump = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return dump;
    }
}
