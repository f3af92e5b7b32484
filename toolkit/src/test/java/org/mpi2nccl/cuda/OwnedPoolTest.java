package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bookkeeping of the label-check slots of CUDA-graph recordings without a GPU (slots stand in for a device flag
 * and a pinned word): a closed recording's slots serve the next recording, so recording again and again keeps as
 * many slots as one recording needs, and everything is freed exactly once.
 */
class OwnedPoolTest {
    private record Slot(int id) {}

    private final List<Slot> made = new ArrayList<>();
    private final List<Slot> freed = new ArrayList<>();
    private final OwnedPool<Slot> pool = new OwnedPool<>(() -> {
        Slot s = new Slot(made.size());
        made.add(s);
        return s;
    }, freed::add);

    @Test
    void aClosedRecordingsSlotsServeTheNextRecording() {
        Object first = new Object();
        Slot a = pool.take(first);
        Slot b = pool.take(first);
        assertNotSame(a, b);
        assertEquals(List.of(a, b), pool.inUse());
        assertEquals(List.of(a, b), pool.giveBack(first));
        assertEquals(List.of(), pool.inUse());
        assertEquals(2, pool.idleCount());
        Object second = new Object();
        Slot c = pool.take(second);
        assertTrue(c == a || c == b, "an idle slot is reused");
        assertEquals(2, made.size());
        assertEquals(List.of(), freed);
    }

    @Test
    void recordingAgainAndAgainKeepsAsManySlotsAsOneRecordingNeeds() {
        for (int recording = 0; recording < 100; recording++) {
            Object owner = new Object();
            for (int check = 0; check < 3; check++) pool.take(owner);   // 3 label checks per recorded step
            assertEquals(3, pool.inUse().size());
            pool.giveBack(owner);
        }
        assertEquals(3, made.size(), "slots made over 100 recordings");
        assertEquals(3, pool.idleCount());
    }

    @Test
    void eachOwnerGetsBackOnlyItsOwnSlots() {
        Object open = new Object();
        Object closing = new Object();
        Slot kept = pool.take(open);
        Slot back = pool.take(closing);
        assertEquals(List.of(back), pool.giveBack(closing));
        assertEquals(List.of(kept), pool.inUse());
        assertEquals(List.of(), pool.giveBack(closing), "given back twice");
        assertEquals(List.of(), pool.giveBack(new Object()), "an owner that never took a slot");
        assertSame(back, pool.take(open));
        assertEquals(List.of(kept, back), pool.inUse());
    }

    @Test
    void freeAllFreesLentAndIdleSlotsOnceAndALaterGiveBackFreesNothing() {
        Object closed = new Object();
        Object open = new Object();
        pool.take(closed);
        pool.take(open);
        pool.take(open);
        pool.giveBack(closed);
        pool.freeAll();
        assertEquals(new HashSet<>(made), new HashSet<>(freed));
        assertEquals(3, freed.size(), "each slot freed once");
        assertEquals(List.of(), pool.giveBack(open), "a recording closed after the backend");
        assertEquals(List.of(), pool.inUse());
        assertEquals(0, pool.idleCount());
        pool.take(new Object());            // usable again, as LabelChecks was after close()
        assertEquals(4, made.size());
        assertEquals(3, freed.size());
    }
}
