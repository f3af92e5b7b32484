package org.mpi2nccl.cuda;

import static org.mpi2nccl.cuda.CudaBackend.checkRange;

import org.mpi2nccl.tensor.Storage;

/**
 * Copies of contiguous ranges for {@link CudaBackend}: host array to device, device to host array, device to device,
 * each on the backend's stream after its ranges are checked. A copy to the host waits for the stream, so it is also
 * where a bad label of an earlier step is reported ({@link LabelChecks}).
 */
final class CudaCopies {
    private final CudaBackend backend;
    private final LabelChecks labelChecks;

    CudaCopies(CudaBackend backend, LabelChecks labelChecks) {
        this.backend = backend;
        this.labelChecks = labelChecks;
    }

    void fromHost(float[] src, int srcOffset, Storage dst, long dstOffset, int n) {
        DeviceMemory d = backend.memory(dst, "copyFromHost");
        checkRange("copyFromHost", dst, dstOffset, n);
        checkHostRange("copyFromHost", src, srcOffset, n);
        d.copyFrom(src, srcOffset, dstOffset, n);
    }

    void toHost(Storage src, long srcOffset, float[] dst, int dstOffset, int n) {
        DeviceMemory s = backend.memory(src, "copyToHost");
        checkRange("copyToHost", src, srcOffset, n);
        checkHostRange("copyToHost", dst, dstOffset, n);
        s.copyTo(srcOffset, dst, dstOffset, n);
        labelChecks.checkAll();             // the stream was waited for: report a bad label from an earlier step
    }

    void onDevice(Storage src, long srcOffset, Storage dst, long dstOffset, long n) {
        DeviceMemory s = backend.memory(src, "copy"), d = backend.memory(dst, "copy");
        checkRange("copy", src, srcOffset, n);
        checkRange("copy", dst, dstOffset, n);
        d.copyFrom(s, srcOffset * 4, dstOffset * 4, n * 4);
    }

    /** The host side of a copy: [offset, offset + n) must lie inside {@code array}. */
    private static void checkHostRange(String op, float[] array, int offset, int n) {
        if (offset < 0 || n < 0 || offset + n > array.length) {
            throw new IllegalArgumentException(op + ": range [" + offset + ", " + (offset + n) + ") outside a float[" + array.length + "]");
        }
    }
}
