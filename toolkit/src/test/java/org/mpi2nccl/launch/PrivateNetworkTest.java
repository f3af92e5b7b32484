package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.launch.nodes.ReportThenSleep;

/**
 * A niodev job on one machine runs in a network of its own: MPJ's daemon, starter and rank JVMs listen only there,
 * so another user's process on the machine cannot reach them (the attack: another account ran a class as the job's
 * user through the daemon's port). Without the private network the same ports are open to the machine, which the
 * control case shows. Skips, saying why, where bubblewrap cannot make a network namespace.
 */
class PrivateNetworkTest {
    @BeforeAll
    static void needsBubblewrap() {
        String why = PrivateNetwork.whyNotHere();
        if (!why.isEmpty()) {
            System.out.println("skipped: " + why);
            Assumptions.abort(why);
        }
    }

    @Test
    void nothingOfTheJobCanBeReachedFromOutsideItsNetwork() throws Exception {
        RunningJob job = startTwoRanks("auto");
        try {
            String ours = PrivateNetwork.netOf(ProcessHandle.current().pid());
            Set<Integer> listening = listeningPortsOf(job);
            assertTrue(listening.size() >= 3, "the daemon and both ranks listen in the job's network: " + listening);
            for (long pid : alive(job.pids())) {
                String net = PrivateNetwork.netOf(pid);
                if (net != null && isJava(pid)) assertNotEquals(ours, net, "process " + pid + " of the job is on the machine's network");
            }
            Set<Integer> hostPorts = ListeningPorts.of(ProcessHandle.current().pid());   // the machine's network
            for (int port : listening) {
                if (hostPorts.contains(port)) continue;   // something else of the machine's listens on that number
                assertFalse(connects(port), "port " + port + " of the job answers on the machine's loopback");
            }
            // Another account cannot enter the job's network either (it is not the owner of its user namespace).
            if ("root".equals(System.getProperty("user.name")) && Files.isExecutable(Path.of("/usr/sbin/runuser"))) {
                long inside = alive(job.pids()).stream().filter(PrivateNetworkTest::isJava)
                        .filter(p -> !ours.equals(PrivateNetwork.netOf(p))).findFirst().orElseThrow();
                Process p = new ProcessBuilder("/usr/sbin/runuser", "-u", "nobody", "--", "/usr/bin/nsenter", "--target",
                        Long.toString(inside), "--user", "--net", "--preserve-credentials", "--", "true")
                        .redirectErrorStream(true).start();
                String said = new String(p.getInputStream().readAllBytes());
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
                assertNotEquals(0, p.exitValue(), "user nobody entered the job's network: " + said);
            }
        } finally {
            job.stop();
        }
    }

    @Test
    void withThePrivateNetworkOffTheDaemonAnswersOnTheMachinesLoopback() throws Exception {
        RunningJob job = startTwoRanks("off");
        try {
            Set<Integer> listening = listeningPortsOf(job);
            assertFalse(listening.isEmpty(), "the job listens");
            assertTrue(listening.stream().anyMatch(PrivateNetworkTest::connects),
                    "with " + PrivateNetwork.ENV + "=off the job is on the machine's network: " + listening);
        } finally {
            job.stop();
        }
    }

    @Test
    void aPolicyThatIsNotOneSaysWhichAreAndTheJobDoesNotStart() {
        MpjLaunchException e = org.junit.jupiter.api.Assertions.assertThrows(MpjLaunchException.class,
                () -> Mpj.launch(ReportThenSleep.class).ranks(2).device(MpjDevice.NIODEV).env(PrivateNetwork.ENV, "maybe").start());
        assertTrue(e.getMessage().contains(PrivateNetwork.ENV + "=maybe is not a policy: use auto, require or off"), e.getMessage());
    }

    private static RunningJob startTwoRanks(String policy) throws InterruptedException {
        List<String> lines = new CopyOnWriteArrayList<>();
        RunningJob job = Mpj.launch(ReportThenSleep.class).ranks(2).device(MpjDevice.NIODEV)
                .env(PrivateNetwork.ENV, policy).timeout(java.time.Duration.ofMinutes(2))
                .onLine(l -> lines.add(l.text())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (lines.stream().filter(l -> l.contains("sum 3")).count() < 2) {
            if (System.nanoTime() > deadline || !job.isAlive()) {
                job.stop();
                fail("the two ranks did not sum within 60 s: " + lines);
            }
            Thread.sleep(50);
        }
        return job;
    }

    private static List<Long> alive(List<Long> pids) {
        List<Long> out = new ArrayList<>();
        for (long p : pids) if (ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false)) out.add(p);
        return out;
    }

    private static boolean isJava(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().command()).map(c -> c.endsWith("/java")).orElse(false);
    }

    /** The ports the job's processes listen on, in whichever network each of them is. */
    private static Set<Integer> listeningPortsOf(RunningJob job) {
        Set<Integer> ports = new TreeSet<>();
        for (long pid : alive(job.pids())) ports.addAll(ListeningPorts.heldBy(pid));
        return ports;
    }

    private static boolean connects(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }
}
