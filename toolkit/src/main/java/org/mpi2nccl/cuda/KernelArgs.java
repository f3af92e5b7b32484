package org.mpi2nccl.cuda;

import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.Arrays;

/**
 * The arguments of one kernel launch, in order, with a type letter per argument so that a launch whose
 * arguments do not match the kernel's C signature fails in Java (naming the kernel) instead of reading
 * garbage on the GPU. Letters: p pointer, l long long, u unsigned long long, i int, f float,
 * L {@link Layout} (144 bytes), W a 2-D window (12 longs: n, c, h, w, kh, kw, sh, sw, ph, pw, oh, ow),
 * S the SgdTensors list of native/optim.cu ({@link #SGD_TENSORS} tensors, 65 longs), A its AdamTensors list (81 longs).
 * <p>The values are kept as 64-bit words in one growing {@code long[]}, laid out as the launch writes them into
 * native memory ({@link #packInto}): each argument in its own word-aligned slot (8 bytes; an int or float in the
 * slot's first 4 bytes), each struct argument (L, W, S, A) starting on a 16-byte boundary. A launch then costs
 * one object and three small arrays here and no object per argument.
 */
public final class KernelArgs {
    /** The 32-bit value sits in the first 4 bytes of its 8-byte slot: the low half of the word on little-endian CPUs. */
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private byte[] types = new byte[12];
    private int[] starts = new int[12];   // word index of each argument's value, from the start of the value area
    private long[] words = new long[16];
    private int count;
    private int wordCount;

    public static KernelArgs of() {
        return new KernelArgs();
    }

    public KernelArgs ptr(long deviceAddress) {
        int at = add('p', 1, false);   // add first: it may replace the array
        words[at] = deviceAddress;
        return this;
    }

    public KernelArgs ptr(DeviceMemory memory) {
        return ptr(memory.address());
    }

    public KernelArgs i64(long value) {
        int at = add('l', 1, false);
        words[at] = value;
        return this;
    }

    public KernelArgs u64(long value) {
        int at = add('u', 1, false);
        words[at] = value;
        return this;
    }

    public KernelArgs i32(int value) {
        int at = add('i', 1, false);
        words[at] = word32(value);
        return this;
    }

    public KernelArgs f32(float value) {
        int at = add('f', 1, false);
        words[at] = word32(Float.floatToRawIntBits(value));
        return this;
    }

    /** The Layout struct of native/common.cuh: ndim, offset, shape[8], strides[8] (144 bytes). */
    public KernelArgs layout(Layout layout) {
        int at = add('L', LAYOUT_WORDS, true);
        long[] shape = layout.shape(), strides = layout.strides();
        words[at] = shape.length;
        words[at + 1] = layout.offset();
        System.arraycopy(shape, 0, words, at + 2, shape.length);
        System.arraycopy(strides, 0, words, at + 2 + Layout.MAX_DIMS, strides.length);
        return this;
    }

    /** The Window2d struct of native/common.cuh: n, c, h, w, kh, kw, sh, sw, ph, pw, oh, ow. */
    public KernelArgs window(long... fields) {
        if (fields.length != WINDOW_WORDS) throw new IllegalArgumentException("a 2-D window has 12 fields, got " + fields.length);
        int at = add('W', WINDOW_WORDS, true);
        System.arraycopy(fields, 0, words, at, WINDOW_WORDS);
        return this;
    }

    /** How many tensors one SgdTensors list holds (SGD_TENSORS in native/optim.cu). */
    public static final int SGD_TENSORS = 16;

    /** Sizes in 8-byte words of the struct arguments: Layout (144 bytes), Window2d, SgdTensors, AdamTensors. */
    static final int LAYOUT_WORDS = 2 + 2 * Layout.MAX_DIMS, WINDOW_WORDS = 12,
            SGD_WORDS = 1 + 4 * SGD_TENSORS, ADAM_WORDS = 1 + 5 * SGD_TENSORS;

    /**
     * The SgdTensors struct of native/optim.cu, passed by value: {@code count} tensors, each with its element
     * count and the device addresses of parameter, gradient and velocity (0 without momentum).
     */
    public KernelArgs sgdTensors(int count, long[] sizes, long[] params, long[] grads, long[] velocities) {
        if (count < 0 || count > SGD_TENSORS) throw new IllegalArgumentException("an SGD tensor list holds 0.." + SGD_TENSORS + " tensors, got " + count);
        int at = add('S', SGD_WORDS, true);   // the unused entries stay 0 (a fresh slot is zeroed)
        words[at] = count;
        System.arraycopy(sizes, 0, words, at + 1, count);
        System.arraycopy(params, 0, words, at + 1 + SGD_TENSORS, count);
        System.arraycopy(grads, 0, words, at + 1 + 2 * SGD_TENSORS, count);
        System.arraycopy(velocities, 0, words, at + 1 + 3 * SGD_TENSORS, count);
        return this;
    }

    /** The AdamTensors struct of native/optim.cu: like {@link #sgdTensors}, with Adam's two moment buffers. */
    public KernelArgs adamTensors(int count, long[] sizes, long[] params, long[] grads, long[] firstMoments, long[] secondMoments) {
        if (count < 0 || count > SGD_TENSORS) throw new IllegalArgumentException("an Adam tensor list holds 0.." + SGD_TENSORS + " tensors, got " + count);
        int at = add('A', ADAM_WORDS, true);
        words[at] = count;
        System.arraycopy(sizes, 0, words, at + 1, count);
        System.arraycopy(params, 0, words, at + 1 + SGD_TENSORS, count);
        System.arraycopy(grads, 0, words, at + 1 + 2 * SGD_TENSORS, count);
        System.arraycopy(firstMoments, 0, words, at + 1 + 3 * SGD_TENSORS, count);
        System.arraycopy(secondMoments, 0, words, at + 1 + 4 * SGD_TENSORS, count);
        return this;
    }

    /** The type letters so far, e.g. "pppl". */
    public String signature() {
        return new String(types, 0, count, java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** Whether the type letters are exactly {@code expected} (no String built: this runs at every launch). */
    boolean signatureIs(String expected) {
        if (expected.length() != count) return false;
        for (int i = 0; i < count; i++) {
            if (expected.charAt(i) != types[i]) return false;
        }
        return true;
    }

    /** How many arguments. */
    int count() {
        return count;
    }

    /** Words of the pointer table at the front of a packed block: one per argument, rounded up to keep 16-byte alignment. */
    int tableWords() {
        return (count + 1) & ~1;
    }

    /** Words {@link #packInto} writes: the pointer table, then the values. */
    int packedWords() {
        return tableWords() + wordCount;
    }

    /** Byte offset of argument {@code i}'s value from the start of a packed block (for tests and messages). */
    long valueOffset(int i) {
        return 8L * (tableWords() + starts[i]);
    }

    /**
     * Writes the launch's {@code kernelParams} into native memory: {@code block} views the memory that starts at
     * {@code blockAddress} (16-byte aligned, at least {@link #packedWords} words). Word i of the table holds the
     * address of argument i's value, which follows the table ({@code void** kernelParams} as cuLaunchKernel takes it).
     */
    void packInto(LongBuffer block, long blockAddress) {
        if ((blockAddress & 15) != 0) throw new IllegalArgumentException("kernel parameter block at 0x" + Long.toHexString(blockAddress) + " is not 16-byte aligned");
        if (block.capacity() < packedWords()) {
            throw new IllegalArgumentException("kernel parameter block of " + block.capacity() + " words, " + packedWords() + " needed");
        }
        int table = tableWords();
        for (int i = 0; i < count; i++) block.put(i, blockAddress + 8L * (table + starts[i]));
        for (int w = 0; w < wordCount; w++) block.put(table + w, words[w]);
    }

    /** Argument {@code i}'s 32-bit value (an int, or a float's bits) as stored in its slot. */
    int int32(int i) {
        return low32(words[starts[i]]);
    }

    /** Word {@code w} of argument {@code i}'s value. */
    long word(int i, int w) {
        return words[starts[i] + w];
    }

    /**
     * Appends an argument of {@code size} words; returns the index of its first word (zeroed). It may replace
     * {@link #words}: call it before indexing the array.
     */
    private int add(char type, int size, boolean struct) {
        if (count == types.length) {
            types = Arrays.copyOf(types, 2 * count);
            starts = Arrays.copyOf(starts, 2 * count);
        }
        int at = struct ? (wordCount + 1) & ~1 : wordCount;   // structs on a 16-byte boundary (the table keeps the parity)
        if (at + size > words.length) words = Arrays.copyOf(words, Math.max(2 * words.length, at + size + 16));
        types[count] = (byte) type;
        starts[count] = at;
        count++;
        wordCount = at + size;
        return at;
    }

    private static long word32(int value) {
        return LITTLE_ENDIAN ? (value & 0xffffffffL) : ((long) value) << 32;
    }

    private static int low32(long word) {
        return LITTLE_ENDIAN ? (int) word : (int) (word >>> 32);
    }
}
