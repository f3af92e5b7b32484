package org.mpi2nccl.bench;

import org.mpi2nccl.launch.nodes.NodesException;
import org.mpi2nccl.launch.nodes.SimulatedNodes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The bandwidth harness twice on the same simulated nodes, same communicator and sizes: 2 ranks within node 0
 * (they talk over its loopback), then 1 rank on each of node 0 and node 1 (over the link between them). The rows
 * are labelled "COMM within a node" and "COMM across nodes", for one table and one chart.
 */
public final class WithinAndAcross {
    private WithinAndAcross() {
    }

    /**
     * @param comm  a communicator the bandwidth command knows (ring, mpj; nccl on GPU nodes)
     * @param sizes the bandwidth command's size options, e.g. {@code List.of("-b", "1K", "-e", "4M", "-f", "4")}
     */
    public static BenchResults measure(SimulatedNodes nodes, String comm, List<String> sizes, Duration timeout,
                                       Consumer<String> lines) {
        try {
            Path oneNode = Files.writeString(nodes.file("machines.node0"), nodes.plan().address(0) + "\n");
            BenchResults within = run(nodes, comm, sizes, oneNode, "within", timeout, lines);
            BenchResults across = run(nodes, comm, sizes, nodes.machinesFile(), "across", timeout, lines);
            return BenchResults.concat(List.of(relabel(within, comm + " within a node"),
                    relabel(across, comm + " across nodes")));
        } catch (IOException e) {
            throw new NodesException("simulated nodes: cannot read the bandwidth results: " + e.getMessage());
        }
    }

    private static BenchResults run(SimulatedNodes nodes, String comm, List<String> sizes, Path machines, String name,
                                    Duration timeout, Consumer<String> lines) throws IOException {
        Path out = nodes.file("bandwidth-" + name);
        List<String> args = new ArrayList<>(List.of("bandwidth", "-np", "2", "--comms", comm, "--machines", machines.toString(),
                "-w", "1", "-n", "5", "--min-iters", "2", "--seconds-per-size", "1", "--no-in-place", "--out", out.toString()));
        args.addAll(sizes);
        SimulatedNodes.NodeRun r = nodes.run(args, timeout, lines);
        Path csv = out.resolve("bandwidth.csv");
        if (r.exitCode() != 0 || !Files.isReadable(csv)) {
            throw new NodesException("simulated nodes: the bandwidth job " + name + " failed (exit " + r.exitCode()
                    + (r.timedOut() ? ", timed out" : "") + "): " + tail(r.lines()));
        }
        return BenchResults.readCsv(csv);
    }

    /** The rows of {@code r} under the communicator name {@code label}. */
    public static BenchResults relabel(BenchResults r, String label) {
        List<BenchRow> rows = new ArrayList<>();
        for (BenchRow b : r.rows()) {
            rows.add(new BenchRow(label, b.collective(), b.ranks(), b.type(), b.op(), b.root(), b.bytes(), b.count(),
                    b.placement(), b.iters(), b.timeUs(), b.algbw(), b.busbw(), b.wrong(), b.d2hUs(), b.collectiveUs(), b.h2dUs()));
        }
        return new BenchResults(rows);
    }

    private static String tail(List<String> lines) {
        return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    }
}
