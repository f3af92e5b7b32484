package org.mpi2nccl.tensor;

import java.util.Arrays;

/**
 * Binary elementwise operations between two arrays with NumPy broadcasting. The common deep-learning case, a
 * full array and a small one that varies along one block of axes (a bias per channel, a statistic per feature),
 * goes to {@link Backend#binaryBroadcast} without expanding the small operand; everything else is broadcast to
 * the common shape, made compact, and handed to {@link Backend#binary}.
 */
final class BroadcastOps {
    private BroadcastOps() {}

    /** {@code x op other} with NumPy broadcasting. */
    static NDArray binary(NDArray x, BinaryOp op, NDArray other) {
        x.requireSameDevice(other, op.name().toLowerCase());
        int[] s = Shapes.broadcast(x.shape, other.shape, op.name().toLowerCase());
        NDArray viaChannels = channelBroadcast(x, op, other, s);
        if (viaChannels != null) return viaChannels;
        try (NDArray ab = x.broadcastTo(s); NDArray a = ab.compact();
             NDArray bb = other.broadcastTo(s); NDArray b = bb.compact()) {
            NDArray out = NDArray.empty(x.device(), s);
            x.backend().binary(op, a.storage(), b.storage(), out.storage(), out.size);
            return out;
        }
    }

    /**
     * The broadcast cases {@link Backend#binaryBroadcast} does without expanding an operand: one side already
     * has the full shape {@code s}, the other's elements (compact) line up with one contiguous block of axes.
     * Returns null when the case does not apply.
     */
    private static NDArray channelBroadcast(NDArray x, BinaryOp op, NDArray other, int[] s) {
        boolean thisFull = Arrays.equals(x.shape, s), otherFull = Arrays.equals(other.shape, s);
        if (thisFull == otherFull) return null;
        NDArray full = thisFull ? x : other, small = thisFull ? other : x;
        BinaryOp effective = thisFull ? op : swapped(op);
        if (effective == null || !small.isCompact()) return null;
        long[] bst;
        try (NDArray b = small.broadcastTo(s)) {
            bst = b.strides;
        }
        // the axes where the small operand varies must be one block [p, q], laid out row-major within it
        int p = -1, q = -1;
        for (int i = 0; i < s.length; i++) {
            if (bst[i] != 0 && s[i] != 1) {
                if (p < 0) p = i;
                else if (q != i - 1) return null;
                q = i;
            }
        }
        long outer = 1, channels = 1, inner = 1;
        if (p >= 0) {
            long expected = 1;
            for (int i = q; i >= p; i--) {
                if (s[i] != 1 && bst[i] != expected) return null;
                expected *= s[i];
            }
            for (int i = 0; i < p; i++) outer *= s[i];
            for (int i = p; i <= q; i++) channels *= s[i];
            for (int i = q + 1; i < s.length; i++) inner *= s[i];
        } else {
            for (int d : s) inner *= d;
        }
        try (NDArray a = full.compact()) {
            NDArray out = NDArray.empty(x.device(), s);
            x.backend().binaryBroadcast(effective, a.storage(), small.storage(), out.storage(), outer, channels, inner);
            return out;
        }
    }

    /** The op with operands exchanged ({@code b op a} as {@code a op' b}), or null if there is none. */
    static BinaryOp swapped(BinaryOp op) {
        return switch (op) {
            case ADD, MUL, MAXIMUM, MINIMUM, EQ, NE -> op;
            case SUB -> BinaryOp.RSUB;
            case RSUB -> BinaryOp.SUB;
            case DIV -> BinaryOp.RDIV;
            case RDIV -> BinaryOp.DIV;
            case GT -> BinaryOp.LT;
            case LT -> BinaryOp.GT;
            case GE -> BinaryOp.LE;
            case LE -> BinaryOp.GE;
            case POW -> null;
        };
    }
}
