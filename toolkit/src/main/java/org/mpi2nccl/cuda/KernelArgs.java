package org.mpi2nccl.cuda;

import java.util.ArrayList;
import java.util.List;
import jcuda.NativePointerObject;
import jcuda.Pointer;

/**
 * The arguments of one kernel launch, in order, with a type letter per argument so that a launch whose
 * arguments do not match the kernel's C signature fails in Java (naming the kernel) instead of reading
 * garbage on the GPU. Letters: p pointer, l long long, u unsigned long long, i int, f float,
 * L {@link Layout} (144 bytes), W a 2-D window (12 longs: n, c, h, w, kh, kw, sh, sw, ph, pw, oh, ow),
 * S the SgdTensors list of native/optim.cu ({@link #SGD_TENSORS} tensors, 65 longs), A its AdamTensors list (81 longs).
 */
public final class KernelArgs {
    private final StringBuilder signature = new StringBuilder();
    private final List<NativePointerObject> values = new ArrayList<>();

    public static KernelArgs of() {
        return new KernelArgs();
    }

    public KernelArgs ptr(long deviceAddress) {
        return add('p', Pointer.to(new long[] {deviceAddress}));
    }

    public KernelArgs ptr(DeviceMemory memory) {
        return ptr(memory.address());
    }

    public KernelArgs i64(long value) {
        return add('l', Pointer.to(new long[] {value}));
    }

    public KernelArgs u64(long value) {
        return add('u', Pointer.to(new long[] {value}));
    }

    public KernelArgs i32(int value) {
        return add('i', Pointer.to(new int[] {value}));
    }

    public KernelArgs f32(float value) {
        return add('f', Pointer.to(new float[] {value}));
    }

    public KernelArgs layout(Layout layout) {
        return add('L', Pointer.to(layout.toParam()));
    }

    /** The Window2d struct of native/common.cuh: n, c, h, w, kh, kw, sh, sw, ph, pw, oh, ow. */
    public KernelArgs window(long... fields) {
        if (fields.length != 12) throw new IllegalArgumentException("a 2-D window has 12 fields, got " + fields.length);
        return add('W', Pointer.to(fields.clone()));
    }

    /** How many tensors one SgdTensors list holds (SGD_TENSORS in native/optim.cu). */
    public static final int SGD_TENSORS = 16;

    /**
     * The SgdTensors struct of native/optim.cu, passed by value: {@code count} tensors, each with its element
     * count and the device addresses of parameter, gradient and velocity (0 without momentum).
     */
    public KernelArgs sgdTensors(int count, long[] sizes, long[] params, long[] grads, long[] velocities) {
        if (count < 0 || count > SGD_TENSORS) throw new IllegalArgumentException("an SGD tensor list holds 0.." + SGD_TENSORS + " tensors, got " + count);
        long[] fields = new long[1 + 4 * SGD_TENSORS];
        fields[0] = count;
        System.arraycopy(sizes, 0, fields, 1, count);
        System.arraycopy(params, 0, fields, 1 + SGD_TENSORS, count);
        System.arraycopy(grads, 0, fields, 1 + 2 * SGD_TENSORS, count);
        System.arraycopy(velocities, 0, fields, 1 + 3 * SGD_TENSORS, count);
        return add('S', Pointer.to(fields));
    }

    /** The AdamTensors struct of native/optim.cu: like {@link #sgdTensors}, with Adam's two moment buffers. */
    public KernelArgs adamTensors(int count, long[] sizes, long[] params, long[] grads, long[] firstMoments, long[] secondMoments) {
        if (count < 0 || count > SGD_TENSORS) throw new IllegalArgumentException("an Adam tensor list holds 0.." + SGD_TENSORS + " tensors, got " + count);
        long[] fields = new long[1 + 5 * SGD_TENSORS];
        fields[0] = count;
        System.arraycopy(sizes, 0, fields, 1, count);
        System.arraycopy(params, 0, fields, 1 + SGD_TENSORS, count);
        System.arraycopy(grads, 0, fields, 1 + 2 * SGD_TENSORS, count);
        System.arraycopy(firstMoments, 0, fields, 1 + 3 * SGD_TENSORS, count);
        System.arraycopy(secondMoments, 0, fields, 1 + 4 * SGD_TENSORS, count);
        return add('A', Pointer.to(fields));
    }

    /** The type letters so far, e.g. "pppl". */
    public String signature() {
        return signature.toString();
    }

    /** The kernelParams array cuLaunchKernel takes. */
    Pointer toKernelParams() {
        return Pointer.to(values.toArray(new NativePointerObject[0]));
    }

    private KernelArgs add(char type, Pointer value) {
        signature.append(type);
        values.add(value);
        return this;
    }
}
