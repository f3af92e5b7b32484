package org.mpi2nccl.kernel.output;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class ProgressTest {
    final List<DisplayData> shown = new ArrayList<>();
    final List<String> updatedIds = new ArrayList<>();
    final List<DisplayData> updates = new ArrayList<>();

    @BeforeEach
    void record() {
        Display.install(new DisplaySink() {
            @Override
            public void display(DisplayData data) {
                shown.add(data);
            }

            @Override
            public void update(String displayId, DisplayData data) {
                updatedIds.add(displayId);
                updates.add(data);
            }
        });
    }

    @AfterEach
    void restore() {
        Display.install(new Display.TextSink());
    }

    @Test
    void oneOutputUpdatedInPlaceAndThrottled() {
        try (Progress p = Progress.start("epoch", 1000)) {
            for (int i = 0; i < 1000; i++) {
                p.step("loss %.1f", 1.0);
            }
        }
        assertEquals(1, shown.size());
        String id = shown.get(0).getDisplayId();
        assertNotNull(id);
        assertTrue(updatedIds.stream().allMatch(id::equals), "every update replaces the same output");
        assertTrue(updates.size() < 50, "a fast loop is throttled, got " + updates.size() + " updates");
        String last = updates.get(updates.size() - 1).getData(MIMEType.TEXT_PLAIN).toString();
        assertTrue(last.contains("epoch 1000/1000 (100%)"), last);
        assertTrue(last.contains("loss 1.0"), last);
        assertTrue(updates.get(updates.size() - 1).getData(MIMEType.TEXT_HTML).toString().contains("value=\"1000\""));
    }

    @Test
    void closingEarlyShowsWhereItStopped() {
        Progress p = Progress.start("work", 10);
        p.set(3);
        p.close();
        String last = updates.get(updates.size() - 1).getData(MIMEType.TEXT_PLAIN).toString();
        assertTrue(last.contains("work 3/10 (30%)"), last);
    }

    @Test
    void aClearedBarLeavesNothingOnThePageAndTakesNoMoreUpdates() {
        Progress p = Progress.start("run 3 of 18", 10);
        p.set(10);
        p.clear();
        DisplayData last = updates.get(updates.size() - 1);
        assertEquals(shown.get(0).getDisplayId(), updatedIds.get(updatedIds.size() - 1), "the bar's own output");
        assertEquals("", last.getData(MIMEType.TEXT_PLAIN));
        assertNull(last.getData(MIMEType.TEXT_HTML));
        int n = updates.size();
        p.close();
        assertEquals(n, updates.size(), "closing a cleared bar shows it no more");
    }

    @Test
    void emptyProgressIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Progress.start("nothing", 0));
    }
}
