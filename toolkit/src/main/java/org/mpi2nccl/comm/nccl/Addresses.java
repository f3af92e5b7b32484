package org.mpi2nccl.comm.nccl;

import org.bytedeco.javacpp.Pointer;

/** JavaCPP pointers made from raw addresses (device memory, streams made by other libraries such as JCuda). */
final class Addresses {
    private Addresses() {
    }

    /**
     * A JavaCPP Pointer holding {@code address} (nothing is allocated or freed through it). A named class with a
     * constructor, not an anonymous {@code new Pointer() {{ this.address = address; }}}: inside an anonymous
     * subclass the inherited field {@code address} shadows the method's parameter of the same name, so that
     * initializer assigns the field to itself and every pointer comes out NULL (what the first GPU run hit:
     * "invalid argument" from cudaMemcpyAsync, illegal memory accesses inside NCCL's kernels).
     */
    static Pointer at(long address) {
        Pointer p = new Raw(address);
        if (p.address() != address) {
            throw new IllegalStateException("JavaCPP pointer for 0x" + Long.toHexString(address) + " holds 0x"
                    + Long.toHexString(p.address()));
        }
        return p;
    }

    /** "0x7f3a..." for messages. */
    static String hex(long address) {
        return "0x" + Long.toHexString(address);
    }

    private static final class Raw extends Pointer {
        Raw(long rawAddress) {
            this.address = rawAddress;
        }
    }
}
