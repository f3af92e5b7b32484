package org.mpi2nccl.bench;

import java.util.ArrayList;
import java.util.List;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.DeviceBuffer;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.HostStaging;
import org.mpi2nccl.comm.nccl.DeviceArray;

/**
 * Where the harness puts its buffers: Java arrays ({@link #host()}) or GPU memory ({@link #gpu(int)}), with
 * the copies it needs to fill inputs and read results. Closing frees what it allocated.
 */
public interface BenchMemory extends AutoCloseable {

    CommBuffer allocate(DataType type, long count);

    void write(HostBuffer src, CommBuffer dst);

    void read(CommBuffer src, HostBuffer dst);

    /** "host" or "cuda:N". */
    String name();

    /** Memory of the same kind whose close frees only what was allocated through it. */
    BenchMemory fresh();

    @Override
    void close();

    static BenchMemory host() {
        return new BenchMemory() {
            @Override
            public CommBuffer allocate(DataType type, long count) {
                return HostBuffer.allocate(type, count);
            }

            @Override
            public void write(HostBuffer src, CommBuffer dst) {
                src.copyTo((HostBuffer) dst);
            }

            @Override
            public void read(CommBuffer src, HostBuffer dst) {
                ((HostBuffer) src).copyTo(dst);
            }

            @Override
            public String name() {
                return "host";
            }

            @Override
            public BenchMemory fresh() {
                return this;
            }

            @Override
            public void close() {
                // heap arrays: the garbage collector frees them
            }
        };
    }

    static BenchMemory gpu(int device) {
        return new BenchMemory() {
            private final List<DeviceArray> arrays = new ArrayList<>();

            @Override
            public CommBuffer allocate(DataType type, long count) {
                DeviceArray a = DeviceArray.allocate(device, type, count);
                arrays.add(a);
                return a.buffer();
            }

            @Override
            public void write(HostBuffer src, CommBuffer dst) {
                HostStaging.toDevice(src, (DeviceBuffer) dst);
            }

            @Override
            public void read(CommBuffer src, HostBuffer dst) {
                HostStaging.toHost((DeviceBuffer) src, dst);
            }

            @Override
            public String name() {
                return "cuda:" + device;
            }

            @Override
            public BenchMemory fresh() {
                return gpu(device);
            }

            @Override
            public void close() {
                arrays.forEach(DeviceArray::close);
                arrays.clear();
            }
        };
    }
}
