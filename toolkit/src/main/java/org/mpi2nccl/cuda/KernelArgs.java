package org.mpi2nccl.cuda;

import java.util.ArrayList;
import java.util.List;
import jcuda.NativePointerObject;
import jcuda.Pointer;

/**
 * The arguments of one kernel launch, in order, with a type letter per argument so that a launch whose
 * arguments do not match the kernel's C signature fails in Java (naming the kernel) instead of reading
 * garbage on the GPU. Letters: p pointer, l long long, u unsigned long long, i int, f float,
 * L {@link Layout} (144 bytes), W a 2-D window (12 longs: n, c, h, w, kh, kw, sh, sw, ph, pw, oh, ow).
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
