package org.mpi2nccl.cuda;

import static org.mpi2nccl.cuda.CudaBackend.checkRange;

import org.mpi2nccl.tensor.BinaryOp;
import org.mpi2nccl.tensor.Storage;
import org.mpi2nccl.tensor.UnaryOp;

/**
 * The elementwise part of {@link CudaBackend}: fill, unary and binary operations (with a scalar, or with a
 * per-channel operand that is indexed, never expanded) and the random fills, one thread per element
 * (native/elementwise.cu, native/memory.cu, native/random.cu). Reversed operations (RSUB, RDIV) run the kernel
 * of SUB and DIV with the operands swapped.
 */
final class CudaElementwise {
    private final CudaBackend backend;
    private final CudaContext context;

    CudaElementwise(CudaBackend backend, CudaContext context) {
        this.backend = backend;
        this.context = context;
    }

    void fill(Storage dst, long offset, long n, float value) {
        long base = address(dst, "fill");
        checkRange("fill", dst, offset, n);
        context.launch(Kernel.FILL, n, KernelArgs.of().ptr(base + offset * 4).f32(value).i64(n));
    }

    void unary(UnaryOp op, Storage a, Storage out, long n) {
        long pa = address(a, op.name()), po = address(out, op.name());
        checkRange(op.name(), a, 0, n);
        checkRange(op.name(), out, 0, n);
        context.launch(Kernel.unary(op), n, KernelArgs.of().ptr(pa).ptr(po).i64(n));
    }

    void binary(BinaryOp op, Storage a, Storage b, Storage out, long n) {
        long pa = address(a, op.name()), pb = address(b, op.name()), po = address(out, op.name());
        checkRange(op.name(), a, 0, n);
        checkRange(op.name(), b, 0, n);
        checkRange(op.name(), out, 0, n);
        boolean swap = op != Kernel.withoutReversal(op);
        context.launch(Kernel.binary(op), n, KernelArgs.of().ptr(swap ? pb : pa).ptr(swap ? pa : pb).ptr(po).i64(n));
    }

    void binaryScalar(BinaryOp op, Storage a, float scalar, Storage out, long n) {
        long pa = address(a, op.name()), po = address(out, op.name());
        checkRange(op.name(), a, 0, n);
        checkRange(op.name(), out, 0, n);
        int reversed = op != Kernel.withoutReversal(op) ? 1 : 0;
        context.launch(Kernel.binaryScalar(op), n, KernelArgs.of().ptr(pa).f32(scalar).ptr(po).i64(n).i32(reversed));
    }

    /** One kernel: {@code b} is indexed by channel, never expanded. */
    void binaryBroadcast(BinaryOp op, Storage a, Storage b, Storage out, long outer, long channels, long inner) {
        if (outer < 0 || channels < 0 || inner < 0) {
            throw new IllegalArgumentException(op.name() + ": negative shape (" + outer + ", " + channels + ", " + inner + ")");
        }
        long n = outer * channels * inner;
        long pa = address(a, op.name()), pb = address(b, op.name()), po = address(out, op.name());
        checkRange(op.name(), a, 0, n);
        checkRange(op.name(), b, 0, channels);
        checkRange(op.name(), out, 0, n);
        int reversed = op != Kernel.withoutReversal(op) ? 1 : 0;
        context.launch(Kernel.binaryBroadcast(op), n, KernelArgs.of().ptr(pa).ptr(pb).ptr(po).i64(outer).i64(channels).i64(inner).i32(reversed));
    }

    void fillUniform(Storage out, long n, float low, float high, long seed, long counter) {
        long po = address(out, "fillUniform");
        checkRange("fillUniform", out, 0, n);
        float span = high - low;
        context.launch(Kernel.FILL_UNIFORM, n, KernelArgs.of().ptr(po).i64(n).f32(low).f32(span).u64(seed).u64(counter));
    }

    void fillNormal(Storage out, long n, float mean, float std, long seed, long counter) {
        long po = address(out, "fillNormal");
        checkRange("fillNormal", out, 0, n);
        context.launch(Kernel.FILL_NORMAL, n, KernelArgs.of().ptr(po).i64(n).f32(mean).f32(std).u64(seed).u64(counter));
    }

    private long address(Storage s, String op) {
        return backend.address(s, op);
    }
}
