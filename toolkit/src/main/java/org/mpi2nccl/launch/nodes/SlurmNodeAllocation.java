package org.mpi2nccl.launch.nodes;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The simulated nodes of a lab server, from Slurm: its partition {@value #PARTITION} holds the nodes node0, node1,
 * ... (network namespaces the instructor's {@code lab start} made, each with its own slurmd). One allocation of the
 * whole partition ({@code salloc --exclusive}) holds them for this JVM; a command on node {@code k} is a step of it
 * ({@code srun --overlap --nodelist nodeK}), so every process on the nodes is this student's and ends with the
 * allocation.
 *
 * <p>salloc runs a command that waits for its standard input to close: when this JVM ends (even killed), the pipe
 * closes, salloc ends the allocation, and Slurm stops every step on the nodes.
 */
public final class SlurmNodeAllocation implements NodePlacement {
    /** The lab's partition of simulated nodes (scripts/lab/nodes.sh). */
    public static final String PARTITION = "nodes";
    /** How long salloc waits for the nodes, which another student's lesson may hold. */
    static final Duration WAIT = Duration.ofSeconds(90);
    private static final String GRANTED = "allocation ";

    private final NodesPlan plan;
    private final Process salloc;
    private final String jobId;

    private SlurmNodeAllocation(NodesPlan plan, Process salloc, String jobId) {
        this.plan = plan;
        this.salloc = salloc;
        this.jobId = jobId;
    }

    /** Why the nodes cannot come from Slurm here (no Slurm, no partition {@value #PARTITION}), or empty when they can. */
    public static Optional<String> whyNot(NodesPlan plan) {
        String out;
        try {
            Process p = new ProcessBuilder("sinfo", "--noheader", "--partition=" + PARTITION, "--format=%D").start();
            p.getOutputStream().close();
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.of("Slurm did not answer within 15 s (sinfo)");
            }
            out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return Optional.of("no Slurm commands here (sinfo: " + e.getMessage() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted while asking Slurm");
        }
        int nodes = out.lines().map(String::strip).filter(l -> l.matches("\\d+")).mapToInt(Integer::parseInt).sum();
        if (nodes == 0) {
            return Optional.of("Slurm has no partition '" + PARTITION + "' of simulated nodes (the instructor's ./build.sh lab"
                    + " install makes one, unless given --no-nodes)");
        }
        if (nodes < plan.nodes()) return Optional.of("Slurm's partition '" + PARTITION + "' has " + nodes + " nodes, not " + plan.nodes());
        return Optional.empty();
    }

    /** Asks Slurm for the nodes; throws {@link NodesException} (nothing held) when they are not given within {@link #WAIT}. */
    public static SlurmNodeAllocation allocate(NodesPlan plan) {
        List<String> cmd = salloc(plan);
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();   // its stdin stays open: see the class comment
        } catch (IOException e) {
            throw new NodesException("cannot ask Slurm for the nodes (" + e.getMessage() + "): is slurm-client installed?");
        }
        List<String> said = new CopyOnWriteArrayList<>();
        String[] job = new String[1];
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    if (line.startsWith(GRANTED) && job[0] == null) {
                        synchronized (job) {
                            job[0] = line.substring(GRANTED.length()).strip().split("\\s+")[0];
                            job.notifyAll();
                        }
                    } else if (said.size() < 50) {
                        said.add(line);
                    }
                }
            } catch (IOException ignored) {
                // salloc ended
            }
        }, "slurm-nodes-salloc");
        reader.setDaemon(true);
        reader.start();
        long deadline = System.nanoTime() + WAIT.plusSeconds(15).toNanos();
        synchronized (job) {
            while (job[0] == null && p.isAlive() && System.nanoTime() < deadline) {
                try {
                    job.wait(200);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (job[0] == null) {
            p.destroy();
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            SimulatedNodes.destroyTree(p.toHandle());
            throw new NodesException(refusal(said));
        }
        return new SlurmNodeAllocation(plan, p, job[0]);
    }

    static List<String> salloc(NodesPlan plan) {
        return List.of("salloc", "--partition=" + PARTITION, "--nodes=" + plan.nodes(), "--exclusive",
                "--immediate=" + WAIT.toSeconds(), "--job-name=mpi2nccl-nodes", "sh", "-c",
                "echo \"" + GRANTED + "$SLURM_JOB_ID $SLURM_JOB_NODELIST\" && exec cat > /dev/null");
    }

    /** What salloc said when it gave no nodes, as a sentence with what to do. */
    static String refusal(List<String> said) {
        String words = String.join(" | ", said).strip();
        if (words.contains("mmediate") || words.contains("busy") || words.contains("not available")) {
            return "Slurm gave no nodes within " + WAIT.toSeconds() + " s: another student's lesson holds the lab's two nodes"
                    + " (squeue --partition=" + PARTITION + " shows since when). Run this cell again in a few minutes.";
        }
        return "Slurm gave no nodes" + (words.isEmpty() ? "" : " (salloc said: " + words + ")")
                + ": ask the instructor to check the lab (./build.sh lab status)";
    }

    /** The Slurm job that holds the nodes. */
    public String jobId() {
        return jobId;
    }

    @Override
    public NodesPlan plan() {
        return plan;
    }

    @Override
    public List<String> prefix(int node) {
        return List.of("srun", "--jobid=" + jobId, "--overlap", "--nodes=1", "--ntasks=1",
                "--nodelist=" + plan.hostname(node), "--quiet");
    }

    @Override
    public Duration daemonStartLimit() {
        return Duration.ofSeconds(60);
    }

    /** srun passes SIGTERM on to the step and then ends: the step stops on its node, not only here. */
    @Override
    public void stop(Process command) {
        command.destroy();
        try {
            command.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        SimulatedNodes.destroyTree(command.toHandle());
    }

    /** Ends the allocation: Slurm stops every step on the nodes. */
    @Override
    public synchronized void close() {
        if (!salloc.isAlive()) return;
        List<String> cancel = new ArrayList<>(List.of("scancel", jobId));
        try {
            Process p = new ProcessBuilder(cancel).redirectErrorStream(true).start();
            p.waitFor(15, TimeUnit.SECONDS);
        } catch (IOException e) {
            // salloc's end below ends the allocation too
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            salloc.getOutputStream().close();
            salloc.waitFor(15, TimeUnit.SECONDS);
        } catch (IOException e) {
            // it ended already
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        SimulatedNodes.destroyTree(salloc.toHandle());
    }
}
