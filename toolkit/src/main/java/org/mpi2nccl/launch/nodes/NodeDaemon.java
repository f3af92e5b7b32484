package org.mpi2nccl.launch.nodes;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.mpi2nccl.launch.MpjDaemon;
import org.mpi2nccl.launch.rank.Lifeline;

/**
 * The MPJ daemon of one simulated node, run on the node itself (in its namespace, or as a Slurm step on it): starts
 * the daemon with this process's environment (the node's NCCL variables, which its rank JVMs inherit), waits until
 * it listens, says {@value #READY} on standard output, and keeps it until standard input closes (the
 * {@link SimulatedNodes} that started it ended, {@link Lifeline}) or a signal ends this JVM.
 *
 * <p>Arguments: the daemon's private MPJ home, and its port.
 */
public final class NodeDaemon {
    static final String READY = "mpj daemon listening";

    private NodeDaemon() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2 || !args[1].matches("\\d{1,5}")) {
            throw new IllegalArgumentException("NodeDaemon MPJ_JOB_HOME PORT (got " + List.of(args) + ")");
        }
        Lifeline.watchStdin();
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        int port = Integer.parseInt(args[1]);
        MpjDaemon daemon = MpjDaemon.start(Path.of(args[0]), port, java, Map.of(), List.of(),
                List.of("--enable-native-access=ALL-UNNAMED"));
        Runtime.getRuntime().addShutdownHook(new Thread(daemon::close, "node-daemon-stop"));
        daemon.awaitListening(Duration.ofSeconds(30));
        System.out.println(READY + " on " + InetAddress.getLocalHost().getHostName() + ":" + port);
        System.out.flush();
        int code = daemon.process().waitFor();
        System.out.println("the MPJ daemon on port " + port + " ended with exit code " + code + ": " + daemon.output());
        System.exit(code == 0 ? 1 : code);
    }
}
