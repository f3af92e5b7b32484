package org.mpi2nccl.kernel.mpj;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;

/** What the ranks of a running {@code %%mpj} cell produce, as it arrives (called on the kernel's cell thread). */
public interface RankOutput {
    /** Text a rank printed; {@code stream} is "stdout" or "stderr". Not split at lines. */
    void stream(int rank, String stream, String text);

    /** A rank called {@code display(...)}. */
    void display(int rank, DisplayData data);

    /** A rank updated an output it displayed earlier (a progress bar, say). */
    void update(int rank, String displayId, DisplayData data);

    /** A note from the kernel about the ranks (not from a rank's program). */
    void note(String text);
}
