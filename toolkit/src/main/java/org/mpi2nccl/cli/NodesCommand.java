package org.mpi2nccl.cli;

import org.mpi2nccl.launch.Converters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.mpi2nccl.launch.MpjLaunchException;
import org.mpi2nccl.launch.nodes.NodesException;
import org.mpi2nccl.launch.nodes.NodesPlan;
import org.mpi2nccl.launch.nodes.SimulatedNodes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code nodes}: runs an {@code mpjrun} or {@code bandwidth} job on K simulated nodes of this machine (network
 * namespaces joined by a veth link, an MPJ daemon and NCCL's variables per node), then removes them all. Needs root.
 * Exit code: the job's, 1 when it ran past {@code --timeout}, 2 when the nodes could not be made.
 */
@Command(name = "nodes", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs a job on K simulated nodes of this machine (network namespaces, a veth link; needs root).",
                "Example: mpi2nccl nodes --nodes 2 --link-rate 1gbit -- mpjrun -np 4 org.mpi2nccl.launch.nodes.WhereAmI",
                "         mpi2nccl nodes --gpus-per-node 1 -- bandwidth -np 2 --comms nccl -b 8 -e 1G --out results"})
public final class NodesCommand implements Callable<Integer> {
    @Option(names = {"-K", "--nodes"}, defaultValue = "2", description = "number of nodes, 2..16 (default ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--gpus-per-node", defaultValue = "0",
            description = "GPUs each node sees (CUDA_VISIBLE_DEVICES; node k gets k*n..k*n+n-1); 0: all (default ${DEFAULT-VALUE})")
    int gpusPerNode;

    @Option(names = "--link-rate", paramLabel = "RATE", description = "shape the link between the nodes (tc), e.g. 1gbit; default: unshaped")
    String linkRate;

    @Option(names = "--env", paramLabel = "NAME=VALUE",
            description = "a variable for every node, replacing the nodes' own (repeatable), e.g. --env NCCL_SOCKET_IFNAME=eth0")
    Map<String, String> env = new LinkedHashMap<>();

    @Option(names = "--node-env", paramLabel = "K:NAME=VALUE", description = "a variable for node K only (repeatable)")
    Map<String, String> nodeEnv = new LinkedHashMap<>();

    @Option(names = "--timeout", defaultValue = "30m", converter = Converters.DurationConverter.class,
            description = "stop the job and remove the nodes after this long (default ${DEFAULT-VALUE})")
    Duration timeout;

    @Option(names = "--show", description = "print the nodes (names, addresses, variables) and stop; needs no root")
    boolean show;

    @Parameters(paramLabel = "COMMAND", arity = "0..*",
            description = "after --: mpjrun or bandwidth with its options (the machines file and daemons are added)")
    List<String> command = new ArrayList<>();

    @Override
    public Integer call() {
        NodesPlan plan = plan();
        if (show) {
            System.out.print(plan.describe());
            return 0;
        }
        if (command.isEmpty()) throw new IllegalArgumentException("give the job after --, e.g. -- mpjrun -np 2 org.mpi2nccl.launch.nodes.WhereAmI");
        if (timeout.isNegative() || timeout.isZero()) throw new IllegalArgumentException("--timeout must be positive, got " + timeout);
        SimulatedNodes sim;
        try {
            sim = SimulatedNodes.start(plan);
        } catch (NodesException | MpjLaunchException e) {
            System.err.println("nodes: " + e.getMessage());
            return CommandErrors.BAD_INPUT;
        }
        try {
            System.out.print(plan.describe());
            SimulatedNodes.NodeRun run = sim.run(command, Map.of(), timeout, System.out::println);
            if (run.timedOut()) {
                System.err.println("nodes: the job ran past --timeout " + timeout.toSeconds() + " s: stopped it");
                return CommandErrors.FAILED;
            }
            return run.exitCode();
        } finally {
            sim.close();
            System.out.println("nodes: removed the " + plan.nodes() + " nodes (namespaces, links, daemons)");
        }
    }

    private NodesPlan plan() {
        NodesPlan plan = NodesPlan.of(nodes).gpusPerNode(gpusPerNode).linkRate(linkRate);
        env.forEach(plan::env);
        nodeEnv.forEach((nodeAndName, value) -> {
            int colon = nodeAndName.indexOf(':');
            if (colon < 1 || !nodeAndName.substring(0, colon).matches("\\d+")) {
                throw new IllegalArgumentException("--node-env '" + nodeAndName + "=" + value
                        + "' is not K:NAME=VALUE, e.g. 1:NCCL_SOCKET_IFNAME=eth0");
            }
            plan.env(Integer.parseInt(nodeAndName.substring(0, colon)), nodeAndName.substring(colon + 1), value);
        });
        if (!command.isEmpty() && !SimulatedNodes.JOB_COMMANDS.contains(command.get(0))) {
            throw new IllegalArgumentException("the job must be mpjrun or bandwidth (got '" + command.get(0) + "')");
        }
        return plan;
    }
}
