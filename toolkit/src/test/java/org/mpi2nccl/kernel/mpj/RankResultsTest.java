package org.mpi2nccl.kernel.mpj;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.kernel.jshell.CellError;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class RankResultsTest {
    @Test
    void valuesAreGatheredARowPerRank() {
        RankResults r = new RankResults(3);
        r.value(0, new DisplayData("0"));
        DisplayData img = new DisplayData("chart");
        img.putData(MIMEType.IMAGE_PNG, "iVBORw0KGgo=");
        r.value(2, img);
        DisplayData all = r.gathered();
        assertEquals("[rank 0] 0\n[rank 2] chart", all.getData(MIMEType.TEXT_PLAIN));
        String html = all.getData(MIMEType.TEXT_HTML).toString();
        assertTrue(html.contains("<b>rank 2</b>") && html.contains("data:image/png;base64,iVBORw0KGgo="), html);
        assertNull(new RankResults(2).gathered(), "no values, nothing to show");
    }

    @Test
    void ranksThatShowNothingGetNoRow() {
        RankResults r = new RankResults(3);
        r.value(0, new DisplayData("trained"));
        r.value(1, new DisplayData(""));
        r.value(2, new DisplayData("  "));
        DisplayData all = r.gathered();
        assertEquals("[rank 0] trained", all.getData(MIMEType.TEXT_PLAIN));
        String html = all.getData(MIMEType.TEXT_HTML).toString();
        assertFalse(html.contains("rank 1") || html.contains("rank 2"), html);
        assertTrue(html.contains("white-space:pre-wrap"), "long lines wrap instead of widening the page: " + html);

        RankResults blank = new RankResults(2);
        blank.value(0, new DisplayData(""));
        blank.value(1, new DisplayData(""));
        assertNull(blank.gathered(), "every rank empty: nothing to show");

        RankResults chartOnly = new RankResults(2);
        DisplayData img = new DisplayData("");
        img.putData(MIMEType.IMAGE_PNG, "iVBORw0KGgo=");
        chartOnly.value(1, img);
        chartOnly.value(0, new DisplayData(""));
        assertTrue(chartOnly.gathered().getData(MIMEType.TEXT_HTML).toString().contains("<b>rank 1</b>"),
                "an image with no text is shown");
    }

    @Test
    void identicalErrorsAreShownOnceWithTheirRanks() {
        RankResults r = new RankResults(4);
        CellError compile = new CellError(CellError.Kind.COMPILE, "CompilationError", "cannot find symbol", List.of("line 1: x"));
        for (int k = 0; k < 3; k++) {
            r.error(k, compile);
        }
        CellError e = r.combinedError();
        assertTrue(e.traceback().contains("[ranks 0-2] CompilationError: cannot find symbol"), e.traceback().toString());
        assertTrue(e.traceback().contains("1 other rank finished the cell without error."));
        assertEquals(CellError.Kind.EXCEPTION, e.kind());
    }

    @Test
    void allInterruptedIsAnInterruption() {
        RankResults r = new RankResults(2);
        CellError stop = new CellError(CellError.Kind.INTERRUPTED, "Interrupted", "stopped", List.of("stopped"));
        r.error(0, stop);
        r.error(1, stop);
        assertEquals(CellError.Kind.INTERRUPTED, r.combinedError().kind());
    }

    @Test
    void ranksStoppedInsideACallAreNamedWithWhatToDo() {
        RankResults r = new RankResults(3);
        CellError stop = new CellError(CellError.Kind.INTERRUPTED, "Interrupted", "stopped", List.of("stopped"));
        assertNull(r.stoppedInCommunication());
        r.error(0, stop);
        r.error(2, stop);
        r.stoppedIn(0, "Barrier (cell line 2)");
        r.stoppedIn(2, "Barrier (cell line 2)");
        assertEquals("ranks 0, 2 were stopped inside Barrier (cell line 2)", r.stoppedInCommunication());
        assertTrue(r.combinedError().traceback().contains("ranks 0, 2 were stopped inside Barrier (cell line 2): "
                + OutOfStep.ADVICE), r.combinedError().traceback().toString());
    }

    @Test
    void rankLabels() {
        assertEquals("rank 3", RankResults.ranksLabel(List.of(3)));
        assertEquals("ranks 1-3", RankResults.ranksLabel(List.of(1, 2, 3)));
        assertEquals("ranks 0, 2", RankResults.ranksLabel(List.of(0, 2)));
    }
}
