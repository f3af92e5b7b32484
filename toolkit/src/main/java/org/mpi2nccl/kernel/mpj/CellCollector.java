package org.mpi2nccl.kernel.mpj;

import com.google.gson.JsonObject;
import org.mpi2nccl.kernel.jshell.CellError;
import org.mpi2nccl.launch.RankLine;

import java.util.ArrayList;
import java.util.Set;
import java.util.TreeSet;

import static org.mpi2nccl.kernel.mpj.RankEngines.STOP_GRACE;
import static org.mpi2nccl.kernel.mpj.RankEngines.STRAGGLER_GRACE;

/**
 * Collects one cell's outputs and results from every rank engine ({@link RankEngines#run}), passing outputs on as
 * they arrive, until every rank has sent its result, with the rules for a cell that does not end well: after an
 * interrupt the ranks get {@link RankEngines#STOP_GRACE} to stop; ranks still running {@link RankEngines#STRAGGLER_GRACE}
 * after another rank failed are interrupted; a rank whose link drops has died, and past the stop deadline the job is
 * taken down. Meanwhile a {@link StallInspector} warns when some ranks wait for others that never come.
 *
 * <p>Separate from {@link RankEngines}, which owns the engines' job and links from start to close, because this is
 * the one loop a cell spends its life in: reading it whole tells when the kernel gives up on a cell.
 */
final class CellCollector {
    private final RankEngines engines;

    CellCollector(RankEngines engines) {
        this.engines = engines;
    }

    /** The results of cell {@code id}; outputs go to {@code output} meanwhile. */
    RankResults collect(long id, RankOutput output) throws CellError {
        RankResults results = new RankResults(engines.rankNumbers().size());
        Set<Integer> pending = new TreeSet<>(engines.rankNumbers());
        boolean interruptSent = false;
        long stopDeadline = Long.MAX_VALUE;
        long firstErrorAt = Long.MAX_VALUE;
        StallInspector stalls = new StallInspector(RankEngines.stall(), System.nanoTime(), engines.outOfStep());
        while (!pending.isEmpty()) {
            if (!interruptSent) {
                long now = System.nanoTime();
                engines.sendWhere(stalls.toAsk(now, pending), id);
                String warning = stalls.warning(now, pending);
                if (warning != null) output.note(warning);
            }
            if (engines.interruptRequested() && !interruptSent) {
                interruptSent = true;
                stopDeadline = System.nanoTime() + STOP_GRACE.toNanos();
            }
            if (!interruptSent && firstErrorAt != Long.MAX_VALUE
                    && System.nanoTime() - firstErrorAt > STRAGGLER_GRACE.toNanos()) {
                output.note("ranks " + pending + " are still running " + STRAGGLER_GRACE.toSeconds() + " s after "
                        + RankResults.ranksLabel(new ArrayList<>(results.errors().keySet())) + " failed (waiting in a"
                        + " collective the failed ranks never reached?): interrupting them");
                engines.sendInterrupt(pending);
                interruptSent = true;
                stopDeadline = System.nanoTime() + STOP_GRACE.toNanos();
            }
            if (System.nanoTime() > stopDeadline) {
                throw engines.takeDown("rank" + (pending.size() == 1 ? " " : "s ") + pending + " did not stop within "
                        + STOP_GRACE.toSeconds() + " s of the interrupt (blocked in MPI, or in code that ignores"
                        + " interrupts)", pending);
            }
            EngineEvent ev;
            try {
                ev = engines.nextEvent(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw engines.takeDown("the kernel was interrupted while waiting for the ranks", pending);
            }
            if (ev == null) {
                continue;
            }
            if (ev.line() != null) {
                RankLine l = ev.line();
                engines.remember(l);
                if (l.rank() >= 0) { // output outside the cell's own streams (MPJ, the JVM): show it too
                    output.stream(l.rank(), l.isStderr() ? "stderr" : "stdout", l.text() + "\n");
                }
                continue;
            }
            if (ev.message() == null) {
                throw engines.rankDied(ev.rank());
            }
            JsonObject m = ev.message();
            if (!m.has("id") || m.get("id").getAsLong() != id) {
                continue; // from an earlier, interrupted cell
            }
            switch (EngineWire.str(m, "type")) {
                case "stream":
                    output.stream(ev.rank(), EngineWire.str(m, "name"), EngineWire.str(m, "text"));
                    break;
                case "display":
                    output.display(ev.rank(), EngineWire.displayData(m.getAsJsonObject("data")));
                    break;
                case "update":
                    output.update(ev.rank(), EngineWire.str(m, "displayId"), EngineWire.displayData(m.getAsJsonObject("data")));
                    break;
                case "note": // a rank's output was cut (RankCellOutput): where the rest went
                    output.note(EngineWire.str(m, "text"));
                    break;
                case "where":
                    stalls.answer(ev.rank(), EngineWire.str(m, "at"), m.has("comm") && m.get("comm").getAsBoolean());
                    break;
                case "result":
                    pending.remove(ev.rank());
                    stalls.finished(ev.rank(), System.nanoTime());
                    if (m.has("stoppedIn")) {
                        results.stoppedIn(ev.rank(), EngineWire.str(m, "stoppedIn"));
                    }
                    if (m.has("error")) {
                        results.error(ev.rank(), EngineWire.cellError(m.getAsJsonObject("error")));
                        firstErrorAt = Math.min(firstErrorAt, System.nanoTime());
                    } else if (m.has("value")) {
                        results.value(ev.rank(), EngineWire.displayData(m.getAsJsonObject("value")));
                    }
                    break;
                default:
                    break;
            }
        }
        return results;
    }
}
