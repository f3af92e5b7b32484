package org.mpi2nccl.bench;

import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.nccl.NcclCommunicator;

/**
 * One collective at one size and placement: its buffers, the inputs each rank writes, the call, and the check
 * of the result against values computed directly. Inputs are small integers so that every reduction is exact
 * in every type and any wrong element is a real error: rank r, element i holds (r+1) + (i mod 7) (sum, avg);
 * (r+1)(1 + i mod 7) (max, min); 1 + ((r+i) mod 2) (prod).
 */
final class BenchCase {
    private final Collective collective;
    private final DataType type;
    private final Reduction op;
    private final int root;
    private final int rank;
    private final int ranks;
    private final long count;
    private final boolean inPlace;
    private final BenchMemory memory;
    private CommBuffer send;
    private CommBuffer recv;

    /** @param count elements per rank passed to the call (all-gather: sent; reduce-scatter: received) */
    BenchCase(Collective collective, DataType type, Reduction op, int root, int rank, int ranks, long count,
              boolean inPlace, BenchMemory memory) {
        this.collective = collective;
        this.type = type;
        this.op = op;
        this.root = root;
        this.rank = rank;
        this.ranks = ranks;
        this.count = count;
        this.inPlace = inPlace;
        this.memory = memory;
        allocate();
    }

    /** True when the collective has an in-place form. */
    static boolean hasInPlace(Collective c) {
        return c != Collective.SEND_RECV;
    }

    private void allocate() {
        switch (collective) {
            case ALL_REDUCE, BROADCAST, REDUCE, SEND_RECV -> {
                recv = memory.allocate(type, count);
                send = inPlace ? recv : memory.allocate(type, count);
            }
            case ALL_GATHER -> {
                recv = memory.allocate(type, count * ranks);
                send = inPlace ? recv.slice(rank * count, count) : memory.allocate(type, count);
            }
            case REDUCE_SCATTER -> {
                send = memory.allocate(type, count * ranks);
                recv = inPlace ? send.slice(rank * count, count) : memory.allocate(type, count);
            }
            default -> throw new IllegalArgumentException(collective.label() + " is not benchmarked");
        }
    }

    /** Writes this rank's inputs (and clears the output where it is a separate buffer). */
    void fill() {
        long n = send.count();
        HostBuffer h = HostBuffer.allocate(type, n);
        boolean poison = collective == Collective.BROADCAST && rank != root;   // must be overwritten by the root's data
        for (int i = 0; i < n; i++) {
            h.setDouble(i, poison ? -1 : input(rank, i));
        }
        if (!inPlace && collective != Collective.REDUCE_SCATTER && collective != Collective.ALL_GATHER) {
            memory.write(HostBuffer.allocate(type, recv.count()), recv);
        }
        memory.write(h, send);
    }

    /** The value rank {@code r} contributes at element {@code i}. */
    double input(int r, long i) {
        int k = (int) (i % 7);
        return switch (op) {
            case SUM, AVG -> (r + 1) + k;
            case MAX, MIN -> (r + 1) * (1 + k);
            case PROD -> 1 + ((r + i) % 2);
        };
    }

    /** The reduction over all ranks at element {@code i}, as the element type computes it. */
    double reduced(long i) {
        double acc = input(0, i);
        for (int r = 1; r < ranks; r++) {
            double x = input(r, i);
            acc = switch (op) {
                case SUM, AVG -> acc + x;
                case PROD -> acc * x;
                case MAX -> Math.max(acc, x);
                case MIN -> Math.min(acc, x);
            };
        }
        if (op == Reduction.AVG) {
            acc = type.isFloatingPoint() ? acc / ranks : Math.floor(acc / ranks);
        }
        return acc;
    }

    /** Runs the collective once. */
    void run(Communicator c) {
        switch (collective) {
            case ALL_REDUCE -> c.allReduce(send, recv, op);
            case BROADCAST -> c.broadcast(send, recv, root);
            case REDUCE -> c.reduce(send, recv, op, root);
            case ALL_GATHER -> c.allGather(send, recv);
            case REDUCE_SCATTER -> c.reduceScatter(send, recv, op);
            case SEND_RECV -> sendRecv(c);
            default -> throw new IllegalStateException();
        }
    }

    /** Each rank sends to the next and receives from the previous one, as nccl-tests' sendrecv. */
    private void sendRecv(Communicator c) {
        if (ranks == 1) {
            return;
        }
        int right = (rank + 1) % ranks;
        int left = (rank - 1 + ranks) % ranks;
        if (c instanceof NcclCommunicator) {
            NcclCommunicator.group(() -> {
                c.send(send, right);
                c.recv(recv, left);
            });
        } else if (rank % 2 == 0) {            // blocking send/recv: even ranks send first, odd ranks receive first
            c.send(send, right);
            c.recv(recv, left);
        } else {
            c.recv(recv, left);
            c.send(send, right);
        }
    }

    /** Number of result elements on this rank that differ from the expected values. */
    long countWrong() {
        if (collective == Collective.REDUCE && rank != root) {
            return 0;
        }
        if (collective == Collective.SEND_RECV && ranks == 1) {
            return 0;
        }
        HostBuffer got = HostBuffer.allocate(type, recv.count());
        memory.read(recv, got);
        long wrong = 0;
        for (int i = 0; i < got.length(); i++) {
            if (got.getDouble(i) != expected(i)) {
                wrong++;
            }
        }
        return wrong;
    }

    private double expected(int i) {
        return switch (collective) {
            case ALL_REDUCE, REDUCE -> reduced(i);
            case BROADCAST -> input(root, i);
            case ALL_GATHER -> input((int) (i / count), i % count);
            case REDUCE_SCATTER -> reduced(rank * count + i);
            case SEND_RECV -> input((rank - 1 + ranks) % ranks, i);
            default -> throw new IllegalStateException();
        };
    }
}
