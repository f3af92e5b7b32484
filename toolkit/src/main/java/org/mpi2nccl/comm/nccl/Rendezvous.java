package org.mpi2nccl.comm.nccl;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.mpi2nccl.comm.Communicator;

/**
 * The channel that carries NCCL's unique id from rank 0 to every rank before {@code ncclCommInitRank}
 * (step 3 of {@link NcclBootstrap}): rank 0 made the 128 bytes and every other rank must get them. NCCL leaves
 * this to "any CPU communication system"; three are here, each in its own file, named by URL as in
 * torch.distributed's {@code init_method}:
 * <ul>
 *   <li>{@code mpj} ({@link #over(Communicator)}, {@link CommunicatorRendezvous}): a broadcast over an existing
 *       host communicator, as mpi4py's {@code comm.bcast} does it; needs the ranks started by MPJ;</li>
 *   <li>{@code tcp://host:port} ({@link TcpRendezvous}): rank 0 listens, the others connect;</li>
 *   <li>{@code file:///shared/path} ({@link FileRendezvous}): rank 0 writes a file all ranks can read.</li>
 * </ul>
 * Every rendezvous waits at most its timeout and then says which ranks never came.
 */
public interface Rendezvous {

    /**
     * Rank 0 passes the bytes it made ({@code fromRoot}); every rank returns them. Blocks until every rank
     * has them or the timeout passes.
     */
    byte[] share(int rank, int size, byte[] fromRoot, Duration timeout);

    /** Whether rank 0 must make the id with ncclGetUniqueId first (false when the caller already holds it). */
    default boolean rootMakesId() {
        return true;
    }

    /** "tcp://10.0.0.1:29500" and the like, for messages. */
    String describe();

    /** A broadcast over a host communicator (MPJ or the ring), rank numbers and size taken from it. */
    static Rendezvous over(Communicator host) {
        return new CommunicatorRendezvous(host);
    }

    /** {@code tcp://host:port} or {@code file:///path}. ({@code mpj} needs a communicator: use {@link #over}.) */
    static Rendezvous parse(String url) {
        String u = url.trim();
        if (u.startsWith("tcp://")) {
            URI uri = URI.create(u);
            if (uri.getHost() == null || uri.getPort() < 0) {
                throw new IllegalArgumentException("tcp rendezvous needs host and port: tcp://HOST:PORT, got " + url);
            }
            return new TcpRendezvous(uri.getHost(), uri.getPort());
        }
        if (u.startsWith("file://")) {
            return new FileRendezvous(Path.of(URI.create(u)));
        }
        throw new IllegalArgumentException("unknown rendezvous '" + url + "': use tcp://HOST:PORT or file:///PATH"
                + " (or Rendezvous.over(communicator) to broadcast over MPJ)");
    }
}
