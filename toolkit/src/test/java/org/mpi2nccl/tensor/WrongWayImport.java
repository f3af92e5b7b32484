package org.mpi2nccl.tensor;

/**
 * A class of the bottom floor that reaches up to the kernel: what {@code org.mpi2nccl.layers.LayeringTest} must
 * refuse. Test code, so the check of the toolkit itself never sees it.
 */
public final class WrongWayImport {
    private WrongWayImport() {
    }

    static void show(Object o) {
        org.mpi2nccl.kernel.output.Display.display(o);
    }
}
