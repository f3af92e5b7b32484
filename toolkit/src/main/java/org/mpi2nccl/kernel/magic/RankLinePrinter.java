package org.mpi2nccl.kernel.magic;

import io.github.spencerpark.jupyter.kernel.DisplayStream;
import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import org.mpi2nccl.kernel.output.CellOutput;
import org.mpi2nccl.kernel.mpj.RankOutput;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.Map;

/**
 * Shows a {@code %%mpj} cell's outputs as they arrive: every line a rank prints gets a {@code [rank k]} prefix
 * (a line is held back until its newline, so lines of different ranks never mix), displays go straight to the
 * cell's output.
 */
final class RankLinePrinter implements RankOutput {
    private final PrintStream out;
    private final PrintStream err;
    private final DisplayStream display;
    private final Map<String, StringBuilder> partial = new HashMap<>();

    RankLinePrinter(PrintStream out, PrintStream err, DisplayStream display) {
        this.out = out;
        this.err = err;
        this.display = display;
    }

    @Override
    public void stream(int rank, String stream, String text) {
        StringBuilder buf = partial.computeIfAbsent(rank + "/" + stream, k -> new StringBuilder());
        buf.append(text);
        int nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
            print(rank, stream, buf.substring(0, nl));
            buf.delete(0, nl + 1);
        }
    }

    @Override
    public void display(int rank, DisplayData data) {
        CellOutput.sendPending(); // the lines printed before it go first
        display.display(data);
    }

    @Override
    public void update(int rank, String displayId, DisplayData data) {
        CellOutput.sendPending();
        display.updateDisplay(displayId, data);
    }

    @Override
    public void note(String text) {
        flush();
        CellOutput.note("[mpj] " + text, err); // past the cell's cap: a note is always seen
    }

    /** Prints what is left without a final newline. */
    void flush() {
        for (Map.Entry<String, StringBuilder> e : partial.entrySet()) {
            if (e.getValue().length() > 0) {
                String[] key = e.getKey().split("/");
                print(Integer.parseInt(key[0]), key[1], e.getValue().toString());
                e.getValue().setLength(0);
            }
        }
        out.flush();
        err.flush();
    }

    private void print(int rank, String stream, String line) {
        PrintStream target = "stderr".equals(stream) ? err : out;
        target.println("[rank " + rank + "] " + line);
    }
}
