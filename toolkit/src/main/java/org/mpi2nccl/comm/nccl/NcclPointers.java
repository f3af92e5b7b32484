package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.cudart.cudaGetLastError;
import static org.bytedeco.cuda.global.cudart.cudaMemoryTypeDevice;
import static org.bytedeco.cuda.global.cudart.cudaMemoryTypeManaged;
import static org.bytedeco.cuda.global.cudart.cudaPointerGetAttributes;
import static org.bytedeco.cuda.global.cudart.cudaSuccess;

import java.util.LinkedHashMap;
import java.util.Map;
import org.bytedeco.cuda.cudart.cudaPointerAttributes;
import org.bytedeco.javacpp.Pointer;
import org.mpi2nccl.comm.CollectiveCall;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.DeviceBuffer;

/**
 * Before a call reaches NCCL: asks CUDA what each buffer's address is. Memory that is not device (or managed) memory
 * of the rank's GPU would make NCCL's kernels fault ("illegal memory access", after which the whole CUDA context is
 * unusable), so it is refused here with the address named. One per communicator (it remembers checked buffers).
 */
final class NcclPointers {
    private final int rank;
    private final int device;
    private cudaPointerAttributes attributes;
    /** Buffers already found to be device memory of this GPU (address -> bytes), so the fast mode checks each once. */
    private final Map<Long, Long> checked = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
            return size() > 256;
        }
    };

    NcclPointers(int rank, int device) {
        this.rank = rank;
        this.device = device;
    }

    /**
     * Checks {@code send} and {@code recv} (either may be null); {@code always}: ask CUDA even about a buffer seen
     * before (a driver call per buffer and call), else only about new buffers (the fast path).
     */
    void check(CollectiveCall call, CommBuffer send, CommBuffer recv, boolean always) {
        checkOne(call, "send", send, always);
        checkOne(call, "recv", recv, always);
    }

    private void checkOne(CollectiveCall call, String role, CommBuffer b, boolean always) {
        if (b == null || b.count() == 0) {
            return;
        }
        DeviceBuffer db = (DeviceBuffer) b;
        Long known = checked.get(db.address());
        if (!always && known != null && known >= db.bytes()) {
            return;
        }
        if (attributes == null) {
            attributes = new cudaPointerAttributes();
        }
        int r = cudaPointerGetAttributes(attributes, ptr(db));
        if (r != cudaSuccess) {
            cudaGetLastError();     // a failed query only loses this check; clear it so the call itself decides
            return;
        }
        int type = attributes.type();
        if ((type != cudaMemoryTypeDevice && type != cudaMemoryTypeManaged) || attributes.device() != device) {
            throw new IllegalArgumentException("rank " + rank + ": " + call.describe() + ": the " + role + " buffer at "
                    + Addresses.hex(db.address()) + " (" + db.bytes() + " bytes) is not device memory of cuda:" + device
                    + ": CUDA says it is " + memoryType(type) + (type == cudaMemoryTypeDevice || type == cudaMemoryTypeManaged
                    ? " of cuda:" + attributes.device() : "") + " (freed, never allocated, or another GPU's memory)");
        }
        checked.put(db.address(), db.bytes());
    }

    /** NCCL moves GPU memory of the rank's own device: anything else is refused before the call, naming {@code what}. */
    static void requireDevice(String what, CommBuffer a, CommBuffer b, int rank, int device) {
        for (CommBuffer x : new CommBuffer[] {a, b}) {
            if (x == null) {
                continue;
            }
            if (!(x instanceof DeviceBuffer db)) {
                throw new IllegalArgumentException(what + ": NCCL moves GPU memory, but this buffer is on the host."
                        + " Copy it to the GPU (a CUDA tensor or DeviceArray), or use MpjCommunicator / RingCommunicator"
                        + " for host arrays");
            }
            if (db.device() != device) {
                throw new IllegalArgumentException(what + ": buffer is on cuda:" + db.device() + " but rank " + rank
                        + " of this communicator uses cuda:" + device);
            }
        }
    }

    /** Where a call goes: "allReduce #3 on send 0x.. (n bytes), recv 0x.. (n bytes), ", for error messages. */
    static String describe(CollectiveCall call, CommBuffer send, CommBuffer recv) {
        StringBuilder where = new StringBuilder(call.describe()).append(" on ");
        if (send != null) {
            where.append("send ").append(Addresses.hex(((DeviceBuffer) send).address())).append(" (").append(send.bytes()).append(" bytes), ");
        }
        if (recv != null) {
            where.append("recv ").append(Addresses.hex(((DeviceBuffer) recv).address())).append(" (").append(recv.bytes()).append(" bytes), ");
        }
        return where.toString();
    }

    static Pointer ptr(CommBuffer b) {
        return Addresses.at(((DeviceBuffer) b).address());
    }

    static String memoryType(int type) {
        return switch (type) {
            case 0 -> "unregistered host memory";
            case 1 -> "pinned host memory";
            case 2 -> "device memory";
            case 3 -> "managed memory";
            default -> "memory of type " + type;
        };
    }
}
