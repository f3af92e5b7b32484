package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Slurm launcher: which launcher a job gets, what it asks Slurm for, how a refusal reads, and (where Slurm
 * answers here, as on a lab server after ./build.sh lab start) real jobs as Slurm steps.
 */
class SlurmLauncherTest {
    @Test
    void theEnvironmentChoosesTheLauncher() {
        assertEquals(Launcher.LOCAL, Launcher.fromEnvironment(Map.of()));
        assertEquals(Launcher.SLURM, Launcher.fromEnvironment(Map.of("SLURM_JOB_ID", "7")), "inside an allocation");
        assertEquals(Launcher.LOCAL, Launcher.fromEnvironment(Map.of("SLURM_JOB_ID", "7", Launcher.ENV, "local")));
        assertEquals(Launcher.SLURM, Launcher.fromEnvironment(Map.of(Launcher.ENV, " Slurm ")));
        MpjLaunchException e = assertThrows(MpjLaunchException.class, () -> Launcher.parse("pbs"));
        assertTrue(e.getMessage().contains("'pbs'") && e.getMessage().contains("local") && e.getMessage().contains("slurm"),
                e.getMessage());
    }

    @Test
    void jobsOnNamedHostsStayLocalAndRefuseSlurm(@TempDir Path dir) throws Exception {
        Path machines = Files.writeString(dir.resolve("machines"), "localhost\n");
        JobBuilder hosts = Mpj.launch(PartialSum.class).device(MpjDevice.NIODEV).machinesFile(machines).env(Launcher.ENV, "slurm");
        assertEquals(Launcher.LOCAL, hosts.launcherToUse(), "a machines file means ranks on those hosts, started here");
        hosts.launcher(Launcher.SLURM);
        MpjLaunchException e = assertThrows(MpjLaunchException.class, hosts::launcherToUse);
        assertTrue(e.getMessage().contains("--launcher local"), e.getMessage());
        assertEquals(Launcher.SLURM, Mpj.launch(PartialSum.class).env(Launcher.ENV, "slurm").launcherToUse());
    }

    @Test
    void sinfoSaysWhatANodeOffers() {
        assertEquals(new SlurmNodes(2, 0), SlurmNodes.parse("lab*|2|(null)\n"));
        assertEquals(new SlurmNodes(16, 2), SlurmNodes.parse("lab*|16|gpu:2\n"));
        assertEquals(new SlurmNodes(32, 4), SlurmNodes.parse("gpu*|32|gpu:h200:4(S:0-1)\ngpu*|64|gpu:h200:8\n"), "the smaller node");
        assertEquals(new SlurmNodes(8, 3), SlurmNodes.parse("lab*|8|gpu:a:1,gpu:b:2\n"), "GPUs of two types add up");
        assertEquals(new SlurmNodes(16, 2), SlurmNodes.parse("lab*|16|gpu:2\nnodes|2|(null)\n"),
                "the default partition's node, not lesson 08's nodes without GPUs");
        assertEquals(new SlurmNodes(4, 1), SlurmNodes.parse("a|4|gpu:1\nb|8|gpu:2\n"), "no default: the smallest of all");
        MpjLaunchException e = assertThrows(MpjLaunchException.class, () -> SlurmNodes.parse(""));
        assertTrue(e.getMessage().contains("no node"), e.getMessage());
    }

    @Test
    void theStepAsksForCpusAndGpusANodeHas() {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        JobBuilder four = Mpj.launch(PartialSum.class).ranks(4).timeout(Duration.ofMinutes(3));
        List<String> cp = List.of("/x/app.jar");
        ProcessBuilder step = SlurmStep.command(four, java, cp, Path.of("/x"), new SlurmNodes(2, 8), Map.of());
        List<String> cmd = step.command();
        assertEquals("srun", cmd.get(0));
        assertTrue(cmd.contains("--ntasks=1"), cmd.toString());
        assertTrue(cmd.contains("--cpus-per-task=2"), "no more CPUs than a node has: " + cmd);
        assertTrue(cmd.contains("--gres=gpu:4"), "one GPU a rank: " + cmd);
        assertTrue(cmd.contains("--immediate=60"), "an allocation of its own waits a bounded time: " + cmd);
        assertFalse(cmd.stream().anyMatch(a -> a.startsWith("--time")), "the launcher keeps the job's time, not Slurm: " + cmd);
        assertEquals(SlurmStep.class.getName(), cmd.get(cmd.size() - 1));
        String job = step.environment().get(SlurmStep.JOB_ENV);
        assertTrue(job.contains(PartialSum.class.getName()) && job.contains("/x/app.jar"),
                "the step's job, in srun's environment: " + job);
        List<String> inside = SlurmStep.command(four.gpus(0), java, cp, Path.of("/x"), new SlurmNodes(64, 8),
                Map.of("SLURM_JOB_ID", "12")).command();
        assertTrue(inside.contains("--cpus-per-task=4"), inside.toString());
        assertFalse(inside.stream().anyMatch(a -> a.startsWith("--gres") || a.startsWith("--immediate")),
                "--gpus 0 asks for none; a step inside an allocation does not ask for one: " + inside);
        assertEquals("local", SlurmStep.command(four, java, cp, Path.of("/x"), new SlurmNodes(1, 0), Map.of())
                .environment().get(Launcher.ENV), "inside the step the job is started locally");
    }

    @Test
    void aRefusalSaysWhyAndWhatToDo() {
        assertNull(SlurmStep.refused(List.of("rank 0 says hi", "srun: job 3 queued")));
        String busy = SlurmStep.refused(List.of("srun: error: Unable to allocate resources: Requested nodes are busy"));
        assertNotNull(busy);
        assertTrue(busy.startsWith("Slurm did not run the job: srun: error: Unable to allocate resources") && busy.contains("squeue"), busy);
        String down = SlurmStep.refused(List.of("srun: error: Unable to contact slurm controller (connect failure)"));
        assertTrue(down.contains("./build.sh lab start"), down);
    }

    // --- with Slurm (a lab server after ./build.sh lab start) ---------------------------------------------------

    private static void needsSlurm() {
        String why;
        try {
            SlurmNodes.query();
            return;
        } catch (MpjLaunchException e) {
            why = e.getMessage();
        }
        System.out.println("skipped: no Slurm answers here (" + why + "); ./build.sh test lab runs Slurm jobs");
        Assumptions.abort(why);
    }

    @Test
    void aJobRunsAsASlurmStepOnBothDevices() {
        needsSlurm();
        for (MpjDevice device : MpjDevice.values()) {
            JobResult r = Mpj.launch(SlurmJobRank.class).ranks(2).device(device).launcher(Launcher.SLURM)
                    .timeout(Duration.ofMinutes(2)).run();
            assertEquals(2, r.ranks(), device.toString());
            assertEquals(2, r.lines().stream().filter(l -> l.text().matches("SLURM_JOB_ID=\\d+")).count(),
                    device + ": each rank runs in a Slurm job: " + r.lines());
        }
    }

    @Test
    void aRankThatThrowsIsReportedByNumberThroughTheStep() {
        needsSlurm();
        RankFailedException e = assertThrows(RankFailedException.class, () -> Mpj.launch(ThrowingRank.class).ranks(3)
                .launcher(Launcher.SLURM).timeout(Duration.ofMinutes(2)).run());
        assertTrue(e.getMessage().contains("rank 1") && e.getMessage().contains("rank one gives up"), e.getMessage());
    }
}
