package org.mpi2nccl.kernel.mpj;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import org.mpi2nccl.kernel.jshell.CellError;
import org.mpi2nccl.html.Html;
import org.mpi2nccl.html.HtmlTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How a {@code %%mpj} cell ended on each rank: a value (or none) or an error. The values are gathered into one
 * output, a row per rank; the errors into one error that names each failing rank (identical errors, say the same
 * compile error on every rank, are shown once).
 */
public final class RankResults {
    private final SortedMap<Integer, DisplayData> values = new TreeMap<>();
    private final SortedMap<Integer, CellError> errors = new TreeMap<>();
    /** Ranks an interrupt stopped inside a communication call, and the call. */
    private final SortedMap<Integer, String> stoppedIn = new TreeMap<>();
    private final int ranks;

    RankResults(int ranks) {
        this.ranks = ranks;
    }

    void value(int rank, DisplayData value) {
        values.put(rank, value);
    }

    void error(int rank, CellError error) {
        errors.put(rank, error);
    }

    void stoppedIn(int rank, String call) {
        stoppedIn.put(rank, call);
    }

    /**
     * Which ranks an interrupt stopped inside a collective or a send, in words ("ranks 0, 2 were stopped inside
     * Barrier (cell line 2)"); null when none was. Such a call's messages may still be on their way, so the next
     * collective on these ranks can match them and wait for ever.
     */
    public String stoppedInCommunication() {
        if (stoppedIn.isEmpty()) return null;
        Map<String, List<Integer>> byCall = new TreeMap<>();
        stoppedIn.forEach((r, call) -> byCall.computeIfAbsent(call, k -> new ArrayList<>()).add(r));
        List<String> parts = new ArrayList<>();
        byCall.forEach((call, rs) -> parts.add(ranksLabel(rs) + (rs.size() == 1 ? " was" : " were") + " stopped inside " + call));
        return String.join("; ", parts);
    }

    public Map<Integer, DisplayData> values() {
        return values;
    }

    public Map<Integer, CellError> errors() {
        return errors;
    }

    public boolean failed() {
        return !errors.isEmpty();
    }

    /**
     * The ranks' values in one bundle (text: a line per rank; HTML: a table with each rank's rich output). A rank whose
     * value shows nothing (an empty string, as {@code if (rank == 0) ...} cells leave on the other ranks) gets no row;
     * null when no rank has anything to show.
     */
    public DisplayData gathered() {
        StringBuilder text = new StringBuilder();
        HtmlTable html = new HtmlTable().cssClass("mpi2nccl-ranks");
        for (Map.Entry<Integer, DisplayData> e : values.entrySet()) {
            DisplayData d = e.getValue();
            Object plain = d.getData(MIMEType.TEXT_PLAIN);
            String plainText = plain == null ? "" : plain.toString();
            if (showsNothing(d, plainText)) {
                continue;
            }
            if (text.length() > 0) {
                text.append('\n');
            }
            text.append("[rank ").append(e.getKey()).append("] ").append(plainText.replace("\n", "\n         "));
            // the rank's own output is markup already (an image, a table, escaped text in a pre)
            html.row(HtmlTable.cell("rank " + e.getKey()).bold().top(),
                    HtmlTable.rawCell(richHtml(d, plainText)).align(HtmlTable.Align.LEFT));
        }
        if (text.length() == 0) {
            return null;
        }
        DisplayData all = new DisplayData(text.toString());
        all.putHTML(html.html());
        return all;
    }

    /** No text (or only blanks) and no image or HTML: a row for it would be an empty line. */
    private static boolean showsNothing(DisplayData d, String plainText) {
        return plainText.isBlank() && d.getData(MIMEType.IMAGE_PNG) == null && d.getData(MIMEType.IMAGE_SVG) == null
                && d.getData(MIMEType.TEXT_HTML) == null;
    }

    private static String richHtml(DisplayData d, String plainText) {
        Object png = d.getData(MIMEType.IMAGE_PNG);
        if (png != null) {
            return "<img src=\"data:image/png;base64," + png + "\"/>";
        }
        Object svg = d.getData(MIMEType.IMAGE_SVG);
        if (svg != null) {
            return svg.toString();
        }
        Object html = d.getData(MIMEType.TEXT_HTML);
        if (html != null) {
            return html.toString();
        }
        // Wrapped, not scrolled: a long line must not widen the page past the notebook's column.
        return "<pre style=\"margin:0;white-space:pre-wrap;overflow-wrap:anywhere\">" + Html.escape(plainText) + "</pre>";
    }

    /** One error for the cell: every failing rank named, with its traceback. */
    public CellError combinedError() {
        List<String> lines = new ArrayList<>();
        List<List<Integer>> groups = new ArrayList<>();
        List<CellError> firstOfGroup = new ArrayList<>();
        for (Map.Entry<Integer, CellError> e : errors.entrySet()) {
            int i = 0;
            while (i < firstOfGroup.size() && !same(firstOfGroup.get(i), e.getValue())) {
                i++;
            }
            if (i == firstOfGroup.size()) {
                firstOfGroup.add(e.getValue());
                groups.add(new ArrayList<>());
            }
            groups.get(i).add(e.getKey());
        }
        StringBuilder summary = new StringBuilder();
        for (int i = 0; i < groups.size(); i++) {
            CellError err = firstOfGroup.get(i);
            String who = ranksLabel(groups.get(i));
            lines.add("[" + who + "] " + err.name() + ": " + err.getMessage());
            for (String l : err.traceback()) {
                lines.add("[" + who + "]   " + l);
            }
            summary.append(summary.length() == 0 ? "" : "; ").append(who).append(": ").append(err.getMessage());
        }
        int ok = ranks - errors.size();
        if (ok > 0 && errors.size() < ranks) {
            lines.add(ok + " other rank" + (ok == 1 ? "" : "s") + " finished the cell without error.");
        }
        String stopped = stoppedInCommunication();
        if (stopped != null) {
            lines.add(stopped + ": " + OutOfStep.ADVICE);
        }
        boolean allInterrupted = errors.values().stream().allMatch(e -> e.kind() == CellError.Kind.INTERRUPTED);
        return new CellError(allInterrupted ? CellError.Kind.INTERRUPTED : CellError.Kind.EXCEPTION,
                "RankError", summary.toString(), lines);
    }

    private static boolean same(CellError a, CellError b) {
        return a.kind() == b.kind() && Objects.equals(a.name(), b.name()) && Objects.equals(a.getMessage(), b.getMessage())
                && a.traceback().equals(b.traceback());
    }

    /** "rank 2", "ranks 0-3", "ranks 0, 2". */
    static String ranksLabel(List<Integer> ranks) {
        if (ranks.size() == 1) {
            return "rank " + ranks.get(0);
        }
        boolean consecutive = ranks.get(ranks.size() - 1) - ranks.get(0) == ranks.size() - 1;
        if (consecutive) {
            return "ranks " + ranks.get(0) + "-" + ranks.get(ranks.size() - 1);
        }
        StringBuilder sb = new StringBuilder("ranks ");
        for (int i = 0; i < ranks.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(ranks.get(i));
        }
        return sb.toString();
    }
}
