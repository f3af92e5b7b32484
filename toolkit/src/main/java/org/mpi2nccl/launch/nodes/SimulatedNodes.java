package org.mpi2nccl.launch.nodes;

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
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.mpi2nccl.launch.MpjDaemon;
import org.mpi2nccl.files.PrivateTemp;
import org.mpi2nccl.launch.MpjHome;
import org.mpi2nccl.launch.rank.Lifeline;

/**
 * K machines on one host, for MPJ jobs that cross nodes: {@link NodeNetwork}'s namespaces, an MPJ daemon on each
 * node (started with the node's environment, which its rank JVMs inherit: {@code NCCL_HOSTID},
 * {@code NCCL_SOCKET_IFNAME}, {@code CUDA_VISIBLE_DEVICES}), and a machines file that lists the nodes.
 * A job is an {@code mpi2nccl} command (mpjrun, bandwidth) run on node 0 with that machines file and the running
 * daemons, as on a cluster: {@link #run}.
 * <pre>{@code
 * try (SimulatedNodes nodes = SimulatedNodes.start(NodesPlan.of(2).linkRate("1gbit"))) {
 *     nodes.run(List.of("mpjrun", "-np", "2", "org.mpi2nccl.launch.nodes.WhereAmI"), Duration.ofMinutes(1), System.out::println);
 * }
 * }</pre>
 * {@link #close()} stops every process (daemons, rank JVMs, the command) and deletes the network, also when the
 * JVM is stopped by Ctrl-C (a shutdown hook); daemons and commands also end by themselves when this JVM is killed
 * ({@link Lifeline}), and the next start deletes namespaces a killed JVM left.
 */
public final class SimulatedNodes implements AutoCloseable {
    private static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    /** The commands that take a machines file and running daemons. */
    public static final List<String> JOB_COMMANDS = List.of("mpjrun", "bandwidth");

    private final NodeNetwork network;
    private final Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    private final List<MpjDaemon> daemons = new ArrayList<>();
    private final List<Path> jobHomes = new ArrayList<>();
    private final List<Process> commands = new CopyOnWriteArrayList<>();
    private final List<Long> pidsSeen = new CopyOnWriteArrayList<>();
    private final Thread hook = new Thread(this::close, "simulated-nodes-shutdown");
    private Path dir;

    private SimulatedNodes(NodeNetwork network) {
        this.network = network;
    }

    /** Why simulated nodes cannot be made on this machine (one line: root, iproute2), or empty when they can. */
    public static java.util.Optional<String> whyNotHere() {
        return Ip.whyNot();
    }

    /** Makes the nodes and starts their daemons; throws {@link NodesException} (nothing left behind) when it cannot. */
    public static SimulatedNodes start(NodesPlan plan) {
        SimulatedNodes n = new SimulatedNodes(NodeNetwork.make(plan));
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
            Files.writeString(machinesFile(), network.plan().machinesFile());
        } catch (IOException e) {
            throw new NodesException("simulated nodes: cannot write the machines file: " + e.getMessage());
        }
        for (int k = 0; k < network.plan().nodes(); k++) {
            // MPJ's ports come from the job home's configuration; each namespace has its own, so the same ones are free on every node.
            Path jobHome = home.createJobHome(dir, NodesPlan.DAEMON_PORT, 40052, 40002);
            jobHomes.add(jobHome);
            MpjDaemon d = MpjDaemon.start(jobHome, NodesPlan.DAEMON_PORT, java, network.plan().environment(k),
                    network.prefix(k), List.of(NATIVE_ACCESS));
            daemons.add(d);
            pidsSeen.add(d.process().pid());
        }
        for (int k = 0; k < daemons.size(); k++) {
            try {
                daemons.get(k).awaitListening(Duration.ofSeconds(30));
            } catch (org.mpi2nccl.launch.MpjLaunchException e) {
                throw new NodesException("simulated nodes, node " + k + ": " + e.getMessage());
            }
        }
    }

    public NodeNetwork network() {
        return network;
    }

    public NodesPlan plan() {
        return network.plan();
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
        List<String> cmd = new ArrayList<>(network.prefix(node));
        cmd.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(plan().environment(node));
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
        destroyTree(p.toHandle());
        commands.remove(p);
        join(pump);
        return new NodeRun(ended ? p.exitValue() : -1, !ended, List.copyOf(out));
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
        daemons.forEach(d -> roots.add(d.process().toHandle()));
        commands.forEach(c -> roots.add(c.toHandle()));
        for (ProcessHandle r : roots) {
            r.descendants().forEach(h -> {
                if (!pidsSeen.contains(h.pid())) pidsSeen.add(h.pid());
            });
        }
    }

    /** Stops every daemon, rank JVM and command, deletes the network and the job files. Safe to call twice. */
    @Override
    public synchronized void close() {
        rememberPids();
        commands.forEach(c -> destroyTree(c.toHandle()));
        commands.clear();
        daemons.forEach(MpjDaemon::close);
        daemons.clear();
        network.close();
        jobHomes.forEach(MpjHome::deleteJobHome);
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

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new NodesException("simulated nodes: interrupted while starting the daemons");
        }
    }
}
