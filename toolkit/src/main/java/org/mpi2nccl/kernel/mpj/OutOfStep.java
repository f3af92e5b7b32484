package org.mpi2nccl.kernel.mpj;

import org.mpi2nccl.kernel.jshell.CellError;

import java.util.List;

/**
 * The rank engines after an interrupt stopped some ranks inside a collective (or a send): that call's messages may
 * still be on their way, and the next collective can pick them up and wait for ever. The first cell after such an
 * interrupt is refused with what to do ({@code %mpj restart}); a cell run again anyway goes on, and the stall
 * inspector then warns even when every rank waits in the same call.
 */
final class OutOfStep {
    static final String ADVICE = "that call's messages may still be on their way, and the next collective on these"
            + " ranks can pick them up and wait for ever. %mpj restart starts the ranks afresh (their variables are lost).";

    private volatile String stopped;
    private boolean refused;

    /** After a cell: remembers whether its interrupt left ranks inside a communication call. */
    void after(RankResults results) {
        String s = results.stoppedInCommunication();
        if (s != null) {
            stopped = s;
            refused = false;
        }
    }

    /** Before a cell: the first one after such an interrupt is refused, saying what to do; a second try runs. */
    void beforeCell() throws CellError {
        if (stopped == null || refused) return;
        refused = true;
        String message = "the last interrupt stopped the ranks inside a communication call (" + stopped + "): this"
                + " cell did not run";
        throw new CellError(CellError.Kind.EXCEPTION, "RanksOutOfStep", message, List.of(
                "The call's messages may still be on their way, and a collective in this cell could pick them up and"
                        + " wait for ever.",
                "Run %mpj restart to start the ranks afresh (their variables are lost), or run this cell again to go"
                        + " on with these ranks."));
    }

    /** What the stall inspector adds to its warnings; null while the ranks are in step. */
    String note() {
        return stopped;
    }
}
