package org.mpi2nccl.comm;

/** Checks of the arguments every communicator applies the same way, with messages that say what to fix. */
public final class CommArgs {
    private CommArgs() {
    }

    public static void sameShape(String what, CommBuffer send, CommBuffer recv) {
        notNull(what, "send", send);
        notNull(what, "recv", recv);
        sameKind(what, send, recv);
        if (send.count() != recv.count()) {
            throw new IllegalArgumentException(what + ": send has " + send.count() + " elements but recv has "
                    + recv.count() + "; they must be equal");
        }
    }

    public static void sameKind(String what, CommBuffer a, CommBuffer b) {
        if (a.dataType() != b.dataType()) {
            throw new IllegalArgumentException(what + ": send is " + a.dataType().label() + " but recv is "
                    + b.dataType().label() + "; use one element type");
        }
        if (a.onDevice() != b.onDevice()) {
            throw new IllegalArgumentException(what + ": one buffer is on the GPU and the other on the host;"
                    + " use two buffers on the same device");
        }
    }

    public static void notNull(String what, String name, CommBuffer b) {
        if (b == null) {
            throw new IllegalArgumentException(what + ": " + name + " buffer is null");
        }
    }

    public static void rankInRange(String what, String role, int r, int size) {
        if (r < 0 || r >= size) {
            throw new IllegalArgumentException(what + ": " + role + " " + r + " is not a rank of this communicator"
                    + " (ranks are 0.." + (size - 1) + ")");
        }
    }

    public static void gatherShape(String what, CommBuffer part, CommBuffer whole, int size) {
        notNull(what, "send", part);
        notNull(what, "recv", whole);
        sameKind(what, part, whole);
        if (whole.count() != part.count() * size) {
            throw new IllegalArgumentException(what + ": the large buffer must hold size x the small one: "
                    + size + " x " + part.count() + " = " + (part.count() * size) + " elements, but it has "
                    + whole.count());
        }
    }

    /** Integer reductions that can overflow silently are fine; reductions on INT8 other than SUM/MAX/MIN too. */
    public static void reducible(String what, DataType t, Reduction op) {
        if (op == null) {
            throw new IllegalArgumentException(what + ": reduction is null (use Reduction.SUM, AVG, MAX, MIN, PROD)");
        }
    }
}
