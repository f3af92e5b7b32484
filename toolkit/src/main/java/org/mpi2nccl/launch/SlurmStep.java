package org.mpi2nccl.launch;

import com.google.gson.Gson;
import org.mpi2nccl.files.PrivateTemp;
import org.mpi2nccl.launch.rank.Lifeline;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A job run by Slurm: one job step ({@code srun --ntasks=1}) holds the job's CPUs and GPUs, and inside it this
 * class, as the step's main, starts the job exactly as the local launcher would (multicore JVM, or MPJ's daemon and
 * starter in a private network) and passes every line of the ranks on unchanged. The launcher outside reads them as
 * if it had started the ranks itself. Slurm sets {@code CUDA_VISIBLE_DEVICES} to the GPUs it granted, so the ranks
 * see those only; when the launcher's JVM ends, srun ends and Slurm stops the step with everything in it.
 *
 * <p>Outside an allocation srun asks for one of its own and gives up after {@link #WAIT_FOR_RESOURCES} rather than
 * queue for ever; inside one (a batch job, salloc) the step takes its share of that allocation.
 */
public final class SlurmStep {
    /** How long srun may wait for free CPUs and GPUs before it says none are free. */
    static final Duration WAIT_FOR_RESOURCES = Duration.ofSeconds(60);
    /** The job the step runs, as JSON ({@link Request}): in srun's environment, which reaches the step, so that no
     * file is left behind when the launcher is killed. */
    static final String JOB_ENV = "MPI2NCCL_SLURM_STEP_JOB";
    private static final Gson GSON = new Gson();

    private SlurmStep() {
    }

    /** What the step needs to start the job the local way (the ranks' own environment travels as it is). */
    record Request(String mainClass, int ranks, String device, List<String> args, long timeoutMillis,
                   List<String> jvmArgs, List<String> classpath, String mpjHome, String javaHome,
                   String workingDirectory, Integer daemonPort) {
    }

    /** The srun command for {@code spec}, with the job for the step in its environment ({@link #JOB_ENV}). */
    static ProcessBuilder command(JobBuilder spec, Path java, List<String> cp, Path workingDirectory, SlurmNodes nodes,
                                  Map<String, String> env) {
        List<String> cmd = new ArrayList<>(List.of("srun", "--ntasks=1", "--nodes=1",
                "--cpus-per-task=" + Math.max(1, Math.min(spec.ranks, nodes.cpus())),
                "--job-name=mpi2nccl-" + simpleName(spec.mainClass), "--kill-on-bad-exit=1", "--quiet"));
        int gpus = spec.gpus != null ? spec.gpus : Math.min(spec.ranks, nodes.gpus());
        if (gpus > 0) cmd.add("--gres=gpu:" + gpus);
        // An allocation of its own waits a bounded time for free resources. No --time: the launcher ends the job at
        // its own timeout, and rank engines (which live as long as their kernel) would exceed a partition's MaxTime.
        if (!env.containsKey("SLURM_JOB_ID")) cmd.add("--immediate=" + WAIT_FOR_RESOURCES.toSeconds());
        cmd.add(java.toString());
        cmd.add(JobBuilder.NATIVE_ACCESS);
        cmd.add(PrivateTemp.jvmOption());
        cmd.add("-cp");
        cmd.add(launcherClasspath());   // the launcher in the step needs what this one needs (gson, tablesaw)
        cmd.add(SlurmStep.class.getName());
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(spec.env);
        pb.environment().put(Launcher.ENV, Launcher.LOCAL.label());   // inside the step the job is local
        pb.environment().put(JOB_ENV, GSON.toJson(request(spec, java, cp, workingDirectory)));
        return pb;
    }

    private static Request request(JobBuilder spec, Path java, List<String> cp, Path workingDirectory) {
        return new Request(spec.mainClass, spec.ranks, spec.device.mpjName(), spec.args, spec.timeout.toMillis(),
                spec.jvmArgs, cp, spec.mpjHome == null ? null : spec.mpjHome.toString(),
                java.getParent().getParent().toString(), workingDirectory.toString(), spec.daemonPort);
    }

    /**
     * What srun said when Slurm refused or ended the step (its "srun: error" lines), as a message with what to do;
     * null when srun said nothing of the kind.
     */
    static String refused(List<String> said) {
        List<String> errors = said.stream().filter(l -> l.startsWith("srun: error:")).map(String::strip).toList();
        if (errors.isEmpty()) return null;
        String all = String.join(" | ", errors);
        String hint = all.contains("Unable to allocate resources") || all.contains("Immediate execution impossible")
                ? ": the CPUs or GPUs asked for are not free (or the lab has fewer); try again later, ask for fewer"
                  + " ranks or GPUs (%mpj start --gpus 0 for a lesson without GPUs; mpjrun --gpus), or see what runs"
                  + " with squeue"
                : all.contains("Unable to contact slurm controller") || all.contains("Connection refused")
                ? ": Slurm's controller does not answer; the instructor starts it with ./build.sh lab start"
                : ": squeue and sinfo say what Slurm sees";
        return "Slurm did not run the job: " + all + hint;
    }

    /** This JVM's class path with the toolkit's own entries: the launcher's classes and their libraries. */
    private static String launcherClasspath() {
        List<String> cp = new ArrayList<>(List.of(System.getProperty("java.class.path", "").split(File.pathSeparator)));
        cp.removeIf(String::isBlank);
        for (String e : ToolkitClasspath.entries()) if (!cp.contains(e)) cp.add(e);
        return String.join(File.pathSeparator, cp);
    }

    private static String simpleName(String mainClass) {
        return mainClass.substring(mainClass.lastIndexOf('.') + 1).replaceAll("[^A-Za-z0-9_]", "_");
    }

    /** In a Slurm step: a line of the job goes on, unchanged, to the launcher outside (through srun). */
    static synchronized void relay(String raw, boolean stderr) {
        (stderr ? System.err : System.out).println(raw);
    }

    /** The step's main: runs the job {@link #JOB_ENV} describes here, passing its lines on. */
    public static void main(String[] args) {
        Lifeline.watchStdin();   // srun closes our stdin when the launcher outside is gone
        Request r = GSON.fromJson(System.getenv(JOB_ENV), Request.class);
        JobBuilder job = Mpj.launch(r.mainClass()).ranks(r.ranks()).device(MpjDevice.parse(r.device())).args(r.args())
                .timeout(Duration.ofMillis(r.timeoutMillis())).launcher(Launcher.LOCAL)
                .classpath(String.join(File.pathSeparator, r.classpath()))
                .workingDirectory(Path.of(r.workingDirectory())).javaHome(Path.of(r.javaHome()));
        if (!r.jvmArgs().isEmpty()) job.jvmArgs(r.jvmArgs().toArray(String[]::new));
        if (r.mpjHome() != null) job.mpjHome(Path.of(r.mpjHome()));
        if (r.daemonPort() != null) job.daemonPort(r.daemonPort());
        job.relay = true;
        try {
            job.run();
            System.exit(0);
        } catch (RuntimeException e) {
            // The ranks' own lines went out already; this says what the launcher in the step saw.
            System.err.println("mpi2nccl (in the Slurm step): " + e.getMessage());
            System.exit(1);
        }
    }
}
