package org.mpi2nccl.cuda;

import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * Raw addresses in and out of JCuda and JavaCPP handles. JCuda keeps a handle's address protected, so
 * these subclasses expose it; JavaCPP pointers are built from an address the same way. This is how a
 * buffer allocated through JCuda reaches cuBLAS or NCCL (JavaCPP) without a copy.
 */
final class Handles {
    private Handles() {}

    private static final CUdeviceptr NULL_DEVICE_POINTER = new CUdeviceptr();

    /** A device pointer JCuda fills in (cuMemAlloc*), whose address can then be read. */
    static final class AllocatedPointer extends CUdeviceptr {
        long address() {
            return getNativePointer();
        }
    }

    /** A JCuda device pointer to an arbitrary address (a buffer plus an offset). */
    static final class AddressPointer extends CUdeviceptr {
        AddressPointer(long address) {
            super(NULL_DEVICE_POINTER, address);   // JCuda passes nativePointer + byteOffset = 0 + address
        }
    }

    /** A stream handle JCuda fills in (cuStreamCreate), whose address can then be read. */
    static final class StreamHandle extends CUstream {
        long address() {
            return getNativePointer();
        }
    }

    /** A kernel function handle JCuda fills in (cuModuleGetFunction), whose address can then be read. */
    static final class FunctionHandle extends CUfunction {
        long address() {
            return getNativePointer();
        }
    }

    /** A JavaCPP pointer to an arbitrary (device or host) address; never deallocates. */
    static final class JavaCppAddress extends org.bytedeco.javacpp.Pointer {
        JavaCppAddress(long address) {
            this.address = address;
        }
    }

    static CUdeviceptr device(long address) {
        return new AddressPointer(address);
    }
}
