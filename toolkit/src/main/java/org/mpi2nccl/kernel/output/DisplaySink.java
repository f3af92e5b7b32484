package org.mpi2nccl.kernel.output;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;

/**
 * Where {@link Display} sends what it renders: the kernel's Jupyter connection, a rank engine's link to the
 * kernel, or (outside Jupyter) standard output.
 */
public interface DisplaySink {
    /** Shows a new output (it carries a display id when it can be updated later). */
    void display(DisplayData data);

    /** Replaces the output shown earlier under {@code displayId}. */
    void update(String displayId, DisplayData data);
}
