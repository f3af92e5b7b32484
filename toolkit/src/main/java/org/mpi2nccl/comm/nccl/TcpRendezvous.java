package org.mpi2nccl.comm.nccl;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.mpi2nccl.comm.CommException;

/**
 * {@code tcp://host:port}, like torchrun's: rank 0 listens on the port, every other rank connects (retrying
 * until rank 0 is up), says who it is and how many ranks it expects, and gets the bytes. Rank 0 returns when
 * all {@code size - 1} ranks have been served, or fails at the timeout naming the ranks that never came.
 */
public final class TcpRendezvous implements Rendezvous {
    private static final String HELLO = "mpi2nccl-rendezvous-1";
    private final String host;
    private final int port;

    public TcpRendezvous(String host, int port) {
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("tcp rendezvous: port " + port + " is not 1..65535");
        }
        this.host = host;
        this.port = port;
    }

    @Override
    public String describe() {
        return "tcp://" + host + ":" + port;
    }

    @Override
    public byte[] share(int rank, int size, byte[] fromRoot, Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        return rank == 0 ? serve(size, fromRoot, end, timeout) : fetch(rank, size, end, timeout);
    }

    private byte[] serve(int size, byte[] id, long end, Duration timeout) {
        TreeSet<Integer> missing = new TreeSet<>();
        for (int r = 1; r < size; r++) {
            missing.add(r);
        }
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(port));
            while (!missing.isEmpty()) {
                long left = (end - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    throw new CommException("rank 0: " + describe() + ": ranks " + missing + " did not connect within "
                            + timeout.toSeconds() + " s (started? same host:port? firewall?)");
                }
                server.setSoTimeout((int) Math.min(left, Integer.MAX_VALUE));
                try (Socket s = server.accept()) {
                    s.setSoTimeout(10_000);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    String hello = in.readUTF();
                    int theirSize = in.readInt();
                    int theirRank = in.readInt();
                    String problem = null;
                    if (!HELLO.equals(hello)) {
                        problem = "not an mpi2nccl rendezvous client";
                    } else if (theirSize != size) {
                        problem = "rank " + theirRank + " expects " + theirSize + " ranks but rank 0 expects " + size;
                    } else if (!missing.contains(theirRank)) {
                        problem = "rank " + theirRank + " is out of range 1.." + (size - 1) + " or connected twice";
                    }
                    if (problem != null) {
                        out.writeUTF("ERROR " + problem);
                        out.flush();
                        throw new CommException("rank 0: " + describe() + ": " + problem);
                    }
                    out.writeUTF("OK");
                    out.writeInt(id.length);
                    out.write(id);
                    out.flush();
                    missing.remove(theirRank);
                } catch (SocketTimeoutException e) {
                    // loop: the deadline check above reports who is missing
                }
            }
            return id.clone();
        } catch (IOException e) {
            throw new CommException("rank 0: " + describe() + ": cannot serve on port " + port + ": " + e.getMessage()
                    + " (is the port free? another job on it?)", e);
        }
    }

    private byte[] fetch(int rank, int size, long end, Duration timeout) {
        List<String> tries = new ArrayList<>();
        while (System.nanoTime() < end) {
            try (Socket s = new Socket()) {
                long left = Math.max(1, (end - System.nanoTime()) / 1_000_000);
                s.connect(new InetSocketAddress(host, port), (int) Math.min(left, 2_000));
                s.setSoTimeout((int) Math.min(Math.max(left, 1000), Integer.MAX_VALUE));
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                DataInputStream in = new DataInputStream(s.getInputStream());
                out.writeUTF(HELLO);
                out.writeInt(size);
                out.writeInt(rank);
                out.flush();
                String reply = in.readUTF();
                if (!reply.equals("OK")) {
                    throw new CommException("rank " + rank + ": " + describe() + ": rank 0 refused: " + reply);
                }
                byte[] id = new byte[in.readInt()];
                in.readFully(id);
                return id;
            } catch (IOException e) {
                if (tries.size() < 3) {
                    tries.add(e.getMessage());
                }
                try {
                    Thread.sleep(50);               // retries against another process: rank 0 may not listen yet
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new CommException("rank " + rank + ": interrupted while connecting to " + describe(), ie);
                }
            }
        }
        throw new CommException("rank " + rank + ": " + describe() + ": could not get the id from rank 0 within "
                + timeout.toSeconds() + " s (is rank 0 running and listening there? first errors: " + tries + ")");
    }
}
