package org.mpi2nccl.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.PointerPointer;

/**
 * Reusable native memory for the {@code kernelParams} of a launch ({@link KernelArgs#packInto}): the pointer table
 * and the argument values, written through a {@link LongBuffer} view (plain memory stores, no JNI call) and handed
 * to cuLaunchKernel by address. The driver copies the values when the launch is queued, so the block can be
 * rewritten by the next launch as soon as cuLaunchKernel returns.
 * <p>Not thread-safe: its owner ({@link DriverLaunch}) writes and launches under one lock. Grows (to the next power
 * of two) when a launch needs more than it holds; {@link #close} frees it. Works without CUDA (plain host memory:
 * JavaCPP's {@link BytePointer}), so its packing is tested on the CPU.
 */
final class KernelParamBlock implements AutoCloseable {
    /** 4 KiB: room for 512 words; the largest launch (ADAM_STEPS: AdamTensors + 7 floats) takes 92. */
    static final int INITIAL_WORDS = 512;

    private BytePointer memory;   // position 0 always
    // The aligned start as the PointerPointer cuLaunchKernel takes: its Pointer overload is @ByPtrPtr (it would pass
    // the address of a variable holding the table, not the table), which the driver rejects with CUDA_ERROR_INVALID_VALUE.
    private PointerPointer<?> table;
    private LongBuffer words;
    private long address;   // 16-byte aligned start inside memory
    private int alignPad;   // bytes from memory's start to address

    KernelParamBlock() {
        allocate(INITIAL_WORDS);
    }

    /** Packs {@code args} and returns the address of the kernelParams table (valid until the next call or close). */
    long write(KernelArgs args) {
        if (memory == null) throw new IllegalStateException("kernel parameter block used after close");
        int need = args.packedWords();
        if (need > words.capacity()) allocate(Integer.highestOneBit(need - 1) << 1);
        args.packInto(words, address);
        return address;
    }

    /** The JavaCPP pointer cuLaunchKernel takes as {@code void** kernelParams}: the table at the block's aligned start. */
    PointerPointer<?> table() {
        if (memory == null) throw new IllegalStateException("kernel parameter block used after close");
        return table;
    }

    /** The words the block holds. */
    int capacityWords() {
        return words.capacity();
    }

    /** Byte {@code offset} of the block as a long / an int (tests read packed values back through JavaCPP). */
    long longAt(long offset) {
        return memory.getLong(alignPad + offset);
    }

    int intAt(long offset) {
        return memory.getInt(alignPad + offset);
    }

    float floatAt(long offset) {
        return memory.getFloat(alignPad + offset);
    }

    long address() {
        return address;
    }

    private void allocate(int wordCapacity) {
        BytePointer fresh = new BytePointer(8L * wordCapacity + 16);   // + 16: room to align the start
        if (fresh.isNull()) throw new OutOfMemoryError("cannot allocate " + (8L * wordCapacity + 16) + " bytes for kernel parameters");
        close();
        memory = fresh;
        alignPad = (int) ((16 - (fresh.address() & 15)) & 15);
        address = fresh.address() + alignPad;
        table = new PointerPointer<>(new Handles.JavaCppAddress(address));
        ByteBuffer bytes = fresh.asByteBuffer();
        words = bytes.limit(alignPad + 8 * wordCapacity).position(alignPad).slice().order(ByteOrder.nativeOrder()).asLongBuffer();
    }

    @Override
    public void close() {
        if (memory != null) {
            memory.close();
            memory = null;
            words = null;
            table = null;
            address = 0;
        }
    }
}
