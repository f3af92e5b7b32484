package org.mpi2nccl.doctor;

import java.io.File;

/**
 * How many NVIDIA GPUs this machine shows, without loading any CUDA library: the driver lists one folder per
 * GPU under /proc/driver/nvidia/gpus. No driver, no folder: zero.
 */
public final class Gpus {
    private Gpus() {
    }

    public static int visibleCount() {
        File[] gpus = new File("/proc/driver/nvidia/gpus").listFiles(File::isDirectory);
        return gpus == null ? 0 : gpus.length;
    }
}
