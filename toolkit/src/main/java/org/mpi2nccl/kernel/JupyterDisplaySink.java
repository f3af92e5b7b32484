package org.mpi2nccl.kernel;

import org.mpi2nccl.kernel.output.CellOutput;
import org.mpi2nccl.kernel.output.DisplaySink;
import io.github.spencerpark.jupyter.kernel.JupyterIO;
import io.github.spencerpark.jupyter.kernel.display.DisplayData;

/** display(...) in the kernel's own cells: straight to the Jupyter connection of the running request. */
final class JupyterDisplaySink implements DisplaySink {
    private final JupyterIO io;

    JupyterDisplaySink(JupyterIO io) {
        this.io = io;
    }

    @Override
    public void display(DisplayData data) {
        if (io.isAttached()) {
            CellOutput.sendPending();
            io.display.display(data);
        }
    }

    @Override
    public void update(String displayId, DisplayData data) {
        if (io.isAttached()) {
            CellOutput.sendPending();
            io.display.updateDisplay(displayId, data);
        }
    }
}
