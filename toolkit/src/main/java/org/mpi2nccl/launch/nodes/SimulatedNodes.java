package org.mpi2nccl.launch.nodes;

import org.mpi2nccl.launch.rank.JobHome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.mpi2nccl.files.PrivateTemp;
import org.mpi2nccl.launch.Launcher;
import org.mpi2nccl.launch.MpjHome;
import org.mpi2nccl.launch.rank.Lifeline;

/**
 * K machines on one host, for MPJ jobs that cross nodes: {@link NodeNetwork}'s namespaces (made here, as root) or
 * a lab server's nodes from Slurm ({@link SlurmNodeAllocation}), an MPJ daemon on each node ({@link NodeDaemon},
 * started with the node's environment, which its rank JVMs inherit: {@code NCCL_HOSTID},
 * {@code NCCL_SOCKET_IFNAME}, {@code CUDA_VISIBLE_DEVICES}), and a machines file that lists the nodes.
 * A job is an {@code mpi2nccl} command (mpjrun, bandwidth) run on node 0 with that machines file and the running
 * daemons, as on a cluster: {@link #run}.
 * <pre>{@code
 * try (SimulatedNodes nodes = SimulatedNodes.start(NodesPlan.of(2).linkRate("1gbit"))) {
 *     nodes.run(List.of("mpjrun", "-np", "2", "org.mpi2nccl.launch.nodes.WhereAmI"), Duration.ofMinutes(1), System.out::println);
 * }
 * }</pre>
 * {@link #close()} stops every process (daemons, rank JVMs, the command) and deletes the network (or gives the
 * nodes back to Slurm), also when the JVM is stopped by Ctrl-C (a shutdown hook); daemons and commands also end by
 * themselves when this JVM is killed ({@link Lifeline}), and the next start deletes namespaces a killed JVM left
 * (Slurm ends an allocation whose holder is gone).
 */
public final class SimulatedNodes implements AutoCloseable {
    private static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    /** The commands that take a machines file and running daemons. */
    public static final List<String> JOB_COMMANDS = List.of("mpjrun", "bandwidth");

    private final NodePlacement placement;
    private final Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    private final List<Process> daemons = new ArrayList<>();
    private final List<Path> jobHomes = new ArrayList<>();
    private final List<Process> commands = new CopyOnWriteArrayList<>();
    private final List<Long> pidsSeen = new CopyOnWriteArrayList<>();
    private final Thread hook = new Thread(this::close, "simulated-nodes-shutdown");
    private Path dir;

    private SimulatedNodes(NodePlacement placement) {
        this.placement = placement;
    }

    /** Why simulated nodes cannot be made on this machine (one line: root, iproute2), or empty when they can. */
    public static java.util.Optional<String> whyNotHere() {
        return Ip.whyNot();
    }

    /** Makes the nodes (namespaces of this machine, as root) and starts their daemons; throws {@link NodesException} (nothing left behind) when it cannot. */
    public static SimulatedNodes start(NodesPlan plan) {
        return start(NodeNetwork.make(plan));
    }

    /**
     * The nodes of a lab server's Slurm partition {@value SlurmNodeAllocation#PARTITION} (no root needed), held for
     * this JVM until {@link #close()}, with a daemon on each; throws {@link NodesException} when Slurm gives none.
     */
    public static SimulatedNodes startUnderSlurm(NodesPlan plan) {
        return start(SlurmNodeAllocation.allocate(plan));
    }

    private static SimulatedNodes start(NodePlacement placement) {
        SimulatedNodes n = new SimulatedNodes(placement);
        Runtime.getRuntime().addShutdownHook(n.hook);
        try {
            n.startDaemons();
            return n;
        } catch (RuntimeException e) {
            n.close();
            throw e;
        }
    }

    private void startDaemons() {
        MpjHome home = MpjHome.locate(null);
        try {
            // In the user's private folder, named after this process: a later start removes it if this one is killed.
            dir = PrivateTemp.newFolder(PrivateTemp.folder(), "nodes");
            Files.writeString(machinesFile(), plan().machinesFile());
        } catch (IOException e) {
            throw new NodesException("simulated nodes: cannot write the machines file: " + e.getMessage());
        }
        List<CountDownLatch> ready = new ArrayList<>();
        List<List<String>> said = new ArrayList<>();
        for (int k = 0; k < plan().nodes(); k++) {
            // MPJ's ports come from the job home's configuration; each node has its own network, so the same ones are free on every node.
            Path jobHome = home.createJobHome(dir, NodesPlan.DAEMON_PORT, 40052, 40002);
            jobHomes.add(jobHome);
            List<String> cmd = new ArrayList<>(placement.prefix(k));
            cmd.addAll(List.of(java.toString(), NATIVE_ACCESS, "-cp", System.getProperty("java.class.path"),
                    NodeDaemon.class.getName(), jobHome.toString(), Integer.toString(NodesPlan.DAEMON_PORT)));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().putAll(onNode(plan().environment(k)));
            Process d;
            try {
                d = pb.start();   // its stdin stays open and unused: the daemon ends when this JVM ends (Lifeline)
            } catch (IOException e) {
                throw new NodesException("simulated nodes: cannot start the daemon of node " + k + ": " + e.getMessage());
            }
            daemons.add(d);
            pidsSeen.add(d.pid());
            CountDownLatch up = new CountDownLatch(1);
            List<String> lines = new CopyOnWriteArrayList<>();
            ready.add(up);
            said.add(lines);
            pump(d.getInputStream(), line -> {
                if (line.startsWith(NodeDaemon.READY)) up.countDown();
                else if (lines.size() < 20) lines.add(line);
            });
        }
        long deadline = System.nanoTime() + placement.daemonStartLimit().toNanos();
        for (int k = 0; k < daemons.size(); k++) {
            boolean up = false;
            try {
                while (!up && daemons.get(k).isAlive() && System.nanoTime() < deadline) {
                    up = ready.get(k).await(100, TimeUnit.MILLISECONDS);
                }
                up |= ready.get(k).getCount() == 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!up) {
                throw new NodesException("simulated nodes, node " + k + ": the MPJ daemon did not start within "
                        + placement.daemonStartLimit().toSeconds() + " s" + (said.get(k).isEmpty() ? ""
                        : " (it said: " + String.join(" | ", said.get(k)) + ")"));
            }
        }
    }

    /** Where the nodes' processes run: {@link NodeNetwork} (namespaces of this machine) or {@link SlurmNodeAllocation}. */
    public NodePlacement placement() {
        return placement;
    }

    public NodesPlan plan() {
        return placement.plan();
    }

    /** The machines file that lists every node (one address a line). */
    public Path machinesFile() {
        return dir.resolve("machines");
    }

    /** A file in this job's own folder (deleted by {@link #close()}), for a machines file of one's own. */
    public Path file(String name) {
        return dir.resolve(name);
    }

    /**
     * Runs the {@code mpi2nccl} command {@code args} on node 0, as one would on a cluster's first node: for
     * {@code mpjrun} and {@code bandwidth}, the niodev device, the nodes' machines file and their running daemons
     * are added (a {@code --machines} of one's own wins). Waits at most {@code timeout}; {@code lines} gets every
     * line the command prints. Node 0's environment plus {@code env}.
     */
    public NodeRun run(List<String> args, Map<String, String> env, Duration timeout, Consumer<String> lines) {
        return runOn(0, cliCommand(jobArgs(args, machinesFile())), env, timeout, lines);
    }

    public NodeRun run(List<String> args, Duration timeout, Consumer<String> lines) {
        return run(args, Map.of(), timeout, lines);
    }

    /** {@code args} with the options that make its job use the nodes. */
    static List<String> jobArgs(List<String> args, Path machinesFile) {
        if (args.isEmpty() || !JOB_COMMANDS.contains(args.get(0))) {
            throw new IllegalArgumentException("simulated nodes run " + JOB_COMMANDS + " (got " + (args.isEmpty() ? "nothing"
                    : "'" + args.get(0) + "'") + "): e.g. nodes -- mpjrun -np 2 org.mpi2nccl.launch.nodes.WhereAmI");
        }
        List<String> out = new ArrayList<>(List.of(args.get(0), "--device", "niodev"));
        if (!args.contains("--machines")) {
            out.addAll(List.of("--machines", machinesFile.toString()));
        }
        out.addAll(List.of("--running-daemons", Integer.toString(NodesPlan.DAEMON_PORT)));
        out.addAll(args.subList(1, args.size()));
        return out;
    }

    private List<String> cliCommand(List<String> args) {
        List<String> cmd = new ArrayList<>(List.of(java.toString(), NATIVE_ACCESS, "-cp", System.getProperty("java.class.path"),
                Lifeline.class.getName(), "org.mpi2nccl.cli.Main"));
        cmd.addAll(args);
        return cmd;
    }

    /** Runs any command on node {@code node} (its namespace, host name and environment plus {@code env}). */
    public NodeRun runOn(int node, List<String> command, Map<String, String> env, Duration timeout, Consumer<String> lines) {
        List<String> cmd = new ArrayList<>(placement.prefix(node));
        cmd.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(onNode(plan().environment(node)));
        pb.environment().putAll(env);
        List<String> out = new CopyOnWriteArrayList<>();
        Process p;
        try {
            p = pb.start();   // its stdin stays open and unused: Lifeline ends the command when this JVM ends
        } catch (IOException e) {
            throw new NodesException("simulated nodes: cannot start " + command.get(0) + " on node " + node + ": " + e.getMessage());
        }
        commands.add(p);
        pidsSeen.add(p.pid());
        Thread pump = pump(p.getInputStream(), line -> {
            out.add(line);
            if (lines != null) lines.accept(line);
        });
        boolean ended;
        try {
            ended = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ended = false;
        }
        rememberPids();
        placement.stop(p);
        commands.remove(p);
        join(pump);
        return new NodeRun(ended ? p.exitValue() : -1, !ended, List.copyOf(out));
    }

    /** A node's environment: its own variables, and jobs launched right there (not as Slurm steps of their own). */
    private static Map<String, String> onNode(Map<String, String> nodeEnv) {
        Map<String, String> e = new java.util.HashMap<>(nodeEnv);
        e.put(Launcher.ENV, Launcher.LOCAL.label());
        return e;
    }

    /** What a command on a node did: its exit code (-1 when it was stopped at its timeout), and its lines. */
    public record NodeRun(int exitCode, boolean timedOut, List<String> lines) {
        public String text() {
            return String.join("\n", lines);
        }
    }

    /** Every process id these nodes started or saw under their processes (daemons, rank JVMs, commands). */
    public List<Long> pids() {
        rememberPids();
        return List.copyOf(pidsSeen);
    }

    private void rememberPids() {
        List<ProcessHandle> roots = new ArrayList<>();
        daemons.forEach(d -> roots.add(d.toHandle()));
        commands.forEach(c -> roots.add(c.toHandle()));
        for (ProcessHandle r : roots) {
            r.descendants().forEach(h -> {
                if (!pidsSeen.contains(h.pid())) pidsSeen.add(h.pid());
            });
        }
    }

    /** Stops every daemon, rank JVM and command, gives the nodes back and deletes the job files. Safe to call twice. */
    @Override
    public synchronized void close() {
        rememberPids();
        commands.forEach(placement::stop);
        commands.clear();
        daemons.forEach(placement::stop);
        daemons.clear();
        placement.close();
        jobHomes.forEach(JobHome::delete);
        jobHomes.clear();
        if (dir != null) PrivateTemp.remove(dir);
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException | IllegalArgumentException shuttingDownOrRemoved) {
            // called by the hook itself, or a second time
        }
    }

    /** Kills a process and its descendants, deepest first (so each parent can still reap its children), and waits. */
    static void destroyTree(ProcessHandle root) {
        List<ProcessHandle> all = new ArrayList<>(root.descendants().toList());
        all.sort(Comparator.comparingLong(SimulatedNodes::depth).reversed());
        all.add(root);
        for (ProcessHandle h : all) h.destroyForcibly();
        for (ProcessHandle h : all) {
            try {
                h.onExit().get(5, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // it is gone, or the check after close names it
            }
        }
    }

    private static long depth(ProcessHandle p) {
        long d = 0;
        for (var q = p.parent(); q.isPresent() && d < 64; q = q.get().parent()) d++;
        return d;
    }

    private static Thread pump(InputStream in, Consumer<String> sink) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) sink.accept(line);
            } catch (IOException ignored) {
                // the process was stopped
            }
        }, "simulated-nodes-output");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void join(Thread t) {
        try {
            t.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
