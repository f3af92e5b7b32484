package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.nccl.ncclGetErrorString;
import static org.bytedeco.cuda.global.nccl.ncclGetLastError;

import java.util.Locale;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.BytePointer;
import org.mpi2nccl.comm.CommException;

/**
 * An NCCL call failed. The message has NCCL's own words for the result code ({@code ncclGetErrorString}),
 * NCCL's last detailed error ({@code ncclGetLastError}), and a hint for the known causes: "unhandled system
 * error" is most often the wrong network interface ({@code NCCL_SOCKET_IFNAME}) or a too-small /dev/shm in a
 * container; "invalid usage" two ranks on one GPU or mismatched calls; "remote error" a peer that died.
 */
public class NcclException extends CommException {
    private static final long serialVersionUID = 1L;
    // ncclResult_t values (nccl.h): fixed by NCCL's ABI.
    static final int SUCCESS = 0;
    static final int UNHANDLED_CUDA_ERROR = 1;
    static final int SYSTEM_ERROR = 2;
    static final int INTERNAL_ERROR = 3;
    static final int INVALID_ARGUMENT = 4;
    static final int INVALID_USAGE = 5;
    static final int REMOTE_ERROR = 6;
    static final int IN_PROGRESS = 7;

    private final int result;
    private final String lastError;

    public NcclException(int rank, String call, int result, String lastError) {
        super(message(rank, call, result, lastError));
        this.result = result;
        this.lastError = lastError;
    }

    /** Throws for any result other than success (ncclInProgress is handled by the caller). */
    static void check(int rank, String call, int result, ncclComm comm) {
        if (result != SUCCESS) {
            throw new NcclException(rank, call, result, lastError(comm));
        }
    }

    /** The ncclResult_t code. */
    public int result() {
        return result;
    }

    /** NCCL's last detailed error message (may be empty). */
    public String lastError() {
        return lastError;
    }

    static String lastError(ncclComm comm) {
        try {
            BytePointer p = ncclGetLastError(comm);
            return p == null || p.isNull() ? "" : p.getString().trim();
        } catch (Throwable t) {
            return "";
        }
    }

    static String errorString(int result) {
        try {
            BytePointer p = ncclGetErrorString(result);
            return p == null || p.isNull() ? "ncclResult " + result : p.getString();
        } catch (Throwable t) {
            return "ncclResult " + result;
        }
    }

    static String message(int rank, String call, int result, String lastError) {
        StringBuilder s = new StringBuilder("rank ").append(rank).append(": ").append(call).append(" failed: ")
                .append(errorString(result)).append(" (ncclResult ").append(result).append(')');
        if (lastError != null && !lastError.isEmpty()) {
            s.append("; NCCL says: ").append(lastError);
        }
        String hint = hint(result, lastError == null ? "" : lastError);
        if (!hint.isEmpty()) {
            s.append(". Hint: ").append(hint);
        }
        return s.toString();
    }

    /** What usually causes this error, and what to try. */
    static String hint(int result, String lastError) {
        String last = lastError.toLowerCase(Locale.ROOT);
        if (last.contains("duplicate gpu")) {
            return "two ranks use the same GPU. Give each rank its own device (rank -> device = local rank),"
                    + " or check CUDA_VISIBLE_DEVICES on each rank";
        }
        if (last.contains("no socket interface") || last.contains("socketpollconnect") || last.contains("no route to host")) {
            return "NCCL found no network interface it can use, or cannot reach a peer through it: NCCL_SOCKET_IFNAME"
                    + " names an interface that does not exist or does not connect the ranks (list them with `ip addr`;"
                    + " e.g. NCCL_SOCKET_IFNAME=eth0, or =^docker0,lo to exclude some); NCCL_DEBUG=INFO shows what was tried";
        }
        if (last.contains("/dev/shm") || last.contains("shm_open") || last.contains("posix_fallocate")) {
            return "NCCL could not create shared memory: in a container, give it more /dev/shm"
                    + " (docker --shm-size=1g or --ipc=host), or set NCCL_SHM_DISABLE=1 (slower)";
        }
        return switch (result) {
            case SYSTEM_ERROR -> "\"unhandled system error\" is most often a network interface NCCL cannot use:"
                    + " set NCCL_SOCKET_IFNAME to the interface the ranks reach each other on (e.g. NCCL_SOCKET_IFNAME=eth0,"
                    + " or NCCL_SOCKET_IFNAME=^docker0,lo to exclude some), check firewalls between the hosts, and run with"
                    + " NCCL_DEBUG=INFO to see which socket call failed. In containers it can also be a small /dev/shm";
            case UNHANDLED_CUDA_ERROR -> "a CUDA call inside NCCL failed: check the device ordinal and free GPU memory,"
                    + " that the driver is new enough for this NCCL and CUDA runtime, and CUDA_VISIBLE_DEVICES;"
                    + " NCCL_DEBUG=INFO shows the failing call";
            case INVALID_USAGE -> "the ranks used NCCL inconsistently: two ranks on one GPU, collectives called in a"
                    + " different order or with different sizes on different ranks, or group calls not closed."
                    + " NCCL_DEBUG=WARN prints the check that failed";
            case INVALID_ARGUMENT -> "an argument NCCL rejected: a host pointer or freed memory where device memory"
                    + " is needed, a rank or root outside 0..size-1, or a count that does not fit the buffer";
            case REMOTE_ERROR -> "a peer rank failed or went away (crash, killed, network): look at the other ranks'"
                    + " output first; NCCL_DEBUG=INFO on every rank shows which connection broke";
            case INTERNAL_ERROR -> "an internal NCCL check failed (a bug or memory corruption): run with"
                    + " NCCL_DEBUG=INFO and report the NCCL version";
            default -> "";
        };
    }
}
