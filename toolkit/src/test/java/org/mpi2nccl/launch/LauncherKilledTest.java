package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The launcher's own JVM is killed (kill -9, as when a notebook kernel is restarted) while its job runs:
 * the rank JVMs, MPJ's daemon and starter must go too, and niodev's temporary job folder with them.
 */
class LauncherKilledTest {
    @AfterEach
    void nothingLeft() {
        Leftovers.assertNoDescendants();
    }

    @ParameterizedTest
    @EnumSource(MpjDevice.class)
    void killingTheLauncherStopsItsJob(MpjDevice device) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process launcher = new ProcessBuilder(java, JobBuilder.NATIVE_ACCESS, "-cp", System.getProperty("java.class.path"),
                "org.mpi2nccl.cli.Main", "mpjrun", "-np", "3", "--device", device.mpjName(), "--timeout", "120s",
                HangingRank.class.getName()).redirectErrorStream(true).start();
        List<ProcessHandle> job;
        Path jobHome;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8))) {
            // Rank 0 prints "done" once every rank is up (Init returned); rank 2 then waits forever.
            String line;
            while ((line = out.readLine()) != null && !line.contains("[rank 0] rank 0 done")) {
                System.out.println(line);
            }
            assertTrue(line != null, "the job started");
            job = launcher.toHandle().descendants().toList();
            jobHome = job.stream().map(p -> p.info().commandLine().orElse(""))
                    .map(c -> Pattern.compile("-Duser\\.home=(\\S+)").matcher(c))
                    .filter(Matcher::find).map(m -> Path.of(m.group(1))).findFirst().orElse(null);
            if (device == MpjDevice.NIODEV) assertTrue(jobHome != null && Files.isDirectory(jobHome), "job folder " + jobHome);
            assertTrue(job.size() >= (device == MpjDevice.NIODEV ? 5 : 1), "the job's processes: " + job.size());
            launcher.destroyForcibly();   // SIGKILL: no shutdown hook runs
            launcher.waitFor(10, TimeUnit.SECONDS);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        List<ProcessHandle> alive = job;
        while (System.nanoTime() < deadline && !(alive = alive.stream().filter(ProcessHandle::isAlive).toList()).isEmpty()) {
            Thread.sleep(100);
        }
        assertEquals(List.of(), alive.stream().map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList(),
                "processes of the killed launcher's job still running");
        // niodev's private MPJ home goes with the daemon and starter (their Lifeline deletes it).
        if (jobHome != null) assertTrue(!Files.exists(jobHome), "the killed launcher's job folder " + jobHome + " is left");
    }
}
