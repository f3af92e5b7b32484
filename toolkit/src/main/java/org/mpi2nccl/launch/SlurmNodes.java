package org.mpi2nccl.launch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one node of the default partition offers, as {@code sinfo} reports it: CPUs and GPUs (its {@code gpu} GRES).
 * A step asks for no more than that: srun refuses a request no node can ever meet.
 *
 * @param cpus CPUs of the smallest node
 * @param gpus GPUs of the node with fewest (0 when the nodes have no GPU GRES)
 */
record SlurmNodes(int cpus, int gpus) {
    private static final Pattern GPU = Pattern.compile("gpu(?::[^:,()]+)?:(\\d+)");

    /** Asks sinfo (at most 15 s). */
    static SlurmNodes query() {
        List<String> cmd = List.of("sinfo", "--noheader", "--format=%P|%c|%G");
        String out;
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getOutputStream().close();
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new MpjLaunchException("Slurm did not answer within 15 s (sinfo): is slurmctld running? The"
                        + " instructor starts it with ./build.sh lab start");
            }
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.exitValue() != 0) {
                throw new MpjLaunchException("Slurm does not answer (sinfo said: " + out + "): is slurmctld running?"
                        + " The instructor starts it with ./build.sh lab start");
            }
        } catch (IOException e) {
            throw new MpjLaunchException("the Slurm launcher needs Slurm's commands (srun, sinfo), and sinfo could not"
                    + " run (" + e.getMessage() + "): install slurm-client, or use the local launcher (--launcher local)");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MpjLaunchException("interrupted while asking Slurm for its nodes");
        }
        return parse(out);
    }

    /**
     * Parses sinfo's {@code %P|%c|%G} lines (one per partition and kind of node), keeping the default partition's
     * (its name ends in '*'; a step without --partition runs there): a lab's partition of lesson 08's nodes, without
     * GPUs, must not hide the GPUs of the machine's own node.
     */
    static SlurmNodes parse(String sinfo) {
        List<String[]> rows = sinfo.strip().lines().map(l -> l.strip().split("\\|", 3)).filter(r -> r.length == 3).toList();
        boolean marked = rows.stream().anyMatch(r -> r[0].strip().endsWith("*"));
        int cpus = Integer.MAX_VALUE;
        int gpus = Integer.MAX_VALUE;
        for (String[] r : rows) {
            if (marked && !r[0].strip().endsWith("*") || !r[1].strip().matches("\\d+")) continue;
            cpus = Math.min(cpus, Integer.parseInt(r[1].strip()));
            Matcher m = GPU.matcher(r[2]);
            int g = 0;
            while (m.find()) g += Integer.parseInt(m.group(1));
            gpus = Math.min(gpus, g);
        }
        if (cpus == Integer.MAX_VALUE) {
            throw new MpjLaunchException("Slurm lists no node in its default partition (sinfo said: '" + sinfo.strip()
                    + "'): the instructor checks slurm.conf (./build.sh lab status)");
        }
        return new SlurmNodes(cpus, gpus);
    }
}
