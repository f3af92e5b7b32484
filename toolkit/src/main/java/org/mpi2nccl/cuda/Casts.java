package org.mpi2nccl.cuda;

/**
 * Element-type conversions on the GPU (native/cast.cu), between raw {@link DeviceMemory} blocks: float32 to
 * half or bfloat16 and back (e.g. to all-reduce gradients at half the bytes), int32 labels to float32, and
 * uint8 pixels to float32 with a scale and shift. Counts are in elements; queued on the context's stream.
 */
public final class Casts {
    private Casts() {}

    public static void floatToHalf(DeviceMemory src, DeviceMemory dst, long n) {
        run(Kernel.CAST_F32_TO_F16, src, 4, dst, 2, n);
    }

    public static void halfToFloat(DeviceMemory src, DeviceMemory dst, long n) {
        run(Kernel.CAST_F16_TO_F32, src, 2, dst, 4, n);
    }

    public static void floatToBfloat16(DeviceMemory src, DeviceMemory dst, long n) {
        run(Kernel.CAST_F32_TO_BF16, src, 4, dst, 2, n);
    }

    public static void bfloat16ToFloat(DeviceMemory src, DeviceMemory dst, long n) {
        run(Kernel.CAST_BF16_TO_F32, src, 2, dst, 4, n);
    }

    public static void intToFloat(DeviceMemory src, DeviceMemory dst, long n) {
        run(Kernel.CAST_I32_TO_F32, src, 4, dst, 4, n);
    }

    /** Java's {@code (int)} cast: toward zero, NaN to 0, saturating. */
    public static void floatToInt(DeviceMemory src, DeviceMemory dst, long n) {
        run(Kernel.CAST_F32_TO_I32, src, 4, dst, 4, n);
    }

    /** dst = src * scale + shift, src bytes read as unsigned (pixels to [0, 1] with scale 1/255). */
    public static void bytesToFloat(DeviceMemory src, DeviceMemory dst, long n, float scale, float shift) {
        src.checkRange(0, n, 1);
        dst.checkRange(0, n, 4);
        src.context().launch(Kernel.CAST_U8_TO_F32, n, KernelArgs.of().ptr(src).ptr(dst).i64(n).f32(scale).f32(shift));
    }

    private static void run(Kernel k, DeviceMemory src, int srcBytes, DeviceMemory dst, int dstBytes, long n) {
        src.checkRange(0, n, srcBytes);
        dst.checkRange(0, n, dstBytes);
        if (src.context() != dst.context()) throw new IllegalArgumentException(k.name + ": source and destination are on different GPUs");
        src.context().launch(k, n, KernelArgs.of().ptr(src).ptr(dst).i64(n));
    }
}
