package org.mpi2nccl.launch;

import org.mpi2nccl.files.PrivateTemp;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.mpi2nccl.launch.rank.Lifeline;
import org.mpi2nccl.launch.rank.MulticoreBoot;
import org.mpi2nccl.launch.rank.NiodevBoot;

/**
 * The command lines that start a job, one per MPJ device. Multicore: one JVM whose {@link MulticoreBoot} runs every
 * rank as a thread, each with its own class loader. Niodev: MPJ's starter (MPJRun), kept alive by
 * {@link Lifeline}, which asks the daemons to start one JVM per rank running {@link NiodevBoot}.
 */
final class JobCommands {
    private JobCommands() {
    }

    /** One JVM for all ranks; the ranks' class path goes to their own class loaders. */
    static ProcessBuilder multicore(JobBuilder spec, Path java, MpjHome home, List<String> cp) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.add(JobBuilder.NATIVE_ACCESS);
        cmd.add(PrivateTemp.jvmOption());
        cmd.add(spec.gpuWaitOption());
        cmd.addAll(spec.jvmArgs);
        cmd.add("-cp");
        cmd.add(ToolkitClasspath.joined());   // the ranks' class path goes to their own class loaders
        cmd.add(MulticoreBoot.class.getName());
        cmd.add(Integer.toString(spec.ranks));
        cmd.add(home.dir().toString());
        cmd.add(String.join(File.pathSeparator, cp));
        cmd.add(spec.mainClass);
        cmd.addAll(spec.args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(spec.env);
        pb.environment().put("MPJ_HOME", home.dir().toString());
        return pb;
    }

    /**
     * {@code cp} with MPJ's runtime jars, for ranks started by daemons already running on a cluster. Daemons build a
     * rank's class path from the starter's MPJ_HOME, here the job home in this host's temp directory, which other
     * hosts do not have; the jars are added from the real MPJ_HOME, which a cluster has at the same path on every
     * host (mpj-config/README.md).
     */
    static List<String> withMpjRuntime(MpjHome home, List<String> cp) {
        List<String> all = new ArrayList<>(cp);
        all.add(home.lib("loader1.jar").toString());
        all.add(home.lib("mpj.jar").toString());
        return all;
    }

    /**
     * MPJ's starter for {@code spec.ranks} ranks on the daemons at {@code port} of the hosts in {@code machines};
     * {@code jobHome} is the job's own MPJ_HOME (its lib/starter.jar and configuration).
     */
    static ProcessBuilder niodev(JobBuilder spec, Path java, Path jobHome, List<String> cp, Path machines, int port,
                                 Path workingDirectory) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.add(JobBuilder.NATIVE_ACCESS);
        // MPJ's starter, run through Lifeline: it ends when the launcher's JVM does.
        cmd.add("-cp");
        cmd.add(jobHome.resolve("lib").resolve("starter.jar") + File.pathSeparator + ToolkitClasspath.joined());
        cmd.add(Lifeline.class.getName());
        cmd.add("runtime.starter.MPJRun");
        cmd.addAll(List.of("-np", Integer.toString(spec.ranks), "-dev", "niodev",
                "-machinesfile", machines.toString(), "-dport", Integer.toString(port),
                "-wdir", workingDirectory.toString()));
        // Options the starter does not know are handed to every rank JVM.
        cmd.add(JobBuilder.NATIVE_ACCESS);
        if (spec.machinesFile == null) cmd.add(PrivateTemp.jvmOption());   // every rank here: this user's folder exists
        cmd.add(spec.gpuWaitOption());
        cmd.addAll(spec.jvmArgs);
        cmd.add("-cp");
        cmd.add(String.join(File.pathSeparator, cp));
        cmd.add(NiodevBoot.class.getName());
        cmd.add(spec.mainClass);
        cmd.addAll(spec.args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().putAll(spec.env);
        pb.environment().put("MPJ_HOME", jobHome.toString());
        return pb;
    }
}
