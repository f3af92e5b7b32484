package org.mpi2nccl.comm.nccl;

import org.bytedeco.javacpp.Pointer;

/** JavaCPP pointers made from raw addresses (device memory, streams made by other libraries such as JCuda). */
final class Addresses {
    private Addresses() {
    }

    /** A JavaCPP Pointer holding {@code address} (nothing is allocated or freed through it). */
    static Pointer at(long address) {
        return new Pointer() {
            {
                this.address = address;
            }
        };
    }
}
