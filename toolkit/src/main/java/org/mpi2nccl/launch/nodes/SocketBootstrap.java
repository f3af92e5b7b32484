package org.mpi2nccl.launch.nodes;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.stream.Collectors;
import mpi.MPI;

/**
 * NCCL's bootstrap over sockets, on the CPU, as a rank program: rank 0 takes the address of the network interface
 * named by {@code NCCL_SOCKET_IFNAME} (or the argument {@code ifname=NAME}), listens there and sends "address:port"
 * to every rank (NCCL's unique id; here through MPJ's broadcast); every other rank connects to it. The mistakes of
 * a multi-node set-up fail here as they do in NCCL: an interface the node lacks, or an address the other nodes
 * cannot reach.
 */
public final class SocketBootstrap {
    private static final int CONNECT_MS = 5000;

    private SocketBootstrap() {
    }

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        String ifname = System.getenv().getOrDefault("NCCL_SOCKET_IFNAME", "");
        for (String a : rest) if (a.startsWith("ifname=")) ifname = a.substring("ifname=".length());
        String host = InetAddress.getLocalHost().getHostName();
        byte[] id = new byte[64];
        ServerSocket server = null;
        if (rank == 0) {
            InetAddress address = addressOf(ifname, host);
            server = new ServerSocket();
            server.bind(new InetSocketAddress(address, 0));
            byte[] s = (address.getHostAddress() + ":" + server.getLocalPort()).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(s, 0, id, 0, s.length);
            System.out.println("rank 0 on " + host + " listens on " + ifname + " at " + new String(s, StandardCharsets.US_ASCII));
        }
        MPI.COMM_WORLD.Bcast(id, 0, id.length, MPI.BYTE, 0);
        String[] hostPort = new String(id, StandardCharsets.US_ASCII).trim().split(":");
        if (rank == 0) {
            server.setSoTimeout(20_000);
            for (int i = 1; i < size; i++) {
                try (Socket s = server.accept(); DataInputStream in = new DataInputStream(s.getInputStream())) {
                    System.out.println("rank 0 heard: " + in.readUTF());
                }
            }
            server.close();
        } else {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), CONNECT_MS);
                new DataOutputStream(s.getOutputStream()).writeUTF("rank " + rank + " on " + host + " reached "
                        + hostPort[0] + ":" + hostPort[1]);
            } catch (java.io.IOException e) {
                throw new java.io.IOException("rank " + rank + " on " + host + " cannot reach rank 0 at " + hostPort[0] + ":"
                        + hostPort[1] + ": " + e.getMessage(), e);
            }
        }
        MPI.Finalize();
    }

    /** The first IPv4 address of interface {@code name}; fails naming the interfaces the node has. */
    static InetAddress addressOf(String name, String host) throws Exception {
        NetworkInterface nif = name.isEmpty() ? null : NetworkInterface.getByName(name);
        if (nif == null) {
            String have = Collections.list(NetworkInterface.getNetworkInterfaces()).stream().map(NetworkInterface::getName)
                    .sorted().collect(Collectors.joining(", "));
            throw new IllegalStateException("no network interface '" + name + "' on " + host + " (it has " + have
                    + "): set NCCL_SOCKET_IFNAME to the one the nodes share");
        }
        return Collections.list(nif.getInetAddresses()).stream().filter(a -> a instanceof Inet4Address).findFirst()
                .orElseThrow(() -> new IllegalStateException("interface " + name + " on " + host + " has no IPv4 address"));
    }
}
