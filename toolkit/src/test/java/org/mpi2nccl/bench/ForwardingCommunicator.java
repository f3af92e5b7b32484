package org.mpi2nccl.bench;

import java.time.Duration;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;

/** A communicator that passes every call on (tests override single calls to plant bugs). */
class ForwardingCommunicator implements Communicator {
    private final Communicator c;

    ForwardingCommunicator(Communicator c) {
        this.c = c;
    }

    @Override public int rank() { return c.rank(); }
    @Override public int size() { return c.size(); }
    @Override public String kind() { return c.kind(); }
    @Override public Duration timeout() { return c.timeout(); }
    @Override public boolean isBroken() { return c.isBroken(); }
    @Override public void allReduce(CommBuffer s, CommBuffer r, Reduction op) { c.allReduce(s, r, op); }
    @Override public void broadcast(CommBuffer s, CommBuffer r, int root) { c.broadcast(s, r, root); }
    @Override public void reduce(CommBuffer s, CommBuffer r, Reduction op, int root) { c.reduce(s, r, op, root); }
    @Override public void allGather(CommBuffer s, CommBuffer r) { c.allGather(s, r); }
    @Override public void reduceScatter(CommBuffer s, CommBuffer r, Reduction op) { c.reduceScatter(s, r, op); }
    @Override public void send(CommBuffer b, int peer) { c.send(b, peer); }
    @Override public void recv(CommBuffer b, int peer) { c.recv(b, peer); }
    @Override public void barrier() { c.barrier(); }
    @Override public Communicator split(int color, int key) { return c.split(color, key); }
    @Override public void close() { c.close(); }
}
