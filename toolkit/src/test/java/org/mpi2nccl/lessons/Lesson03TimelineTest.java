package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.parallel.timing.TimelineEvent;
import org.mpi2nccl.parallel.timing.TimelineEvent.Kind;
import org.mpi2nccl.parallel.timing.TimelineTrace;

/** Lesson 03's sentences about two timelines are computed from their events. */
class Lesson03TimelineTest {
    private static final long MS = 1_000_000;

    /** One step per rank: backward from 0 to 10 ms, then a wait of {@code waitMs}; one all-reduce from {@code reduceAt}. */
    private static TimelineTrace trace(long reduceAt, long waitMs) {
        List<List<TimelineEvent>> ranks = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            ranks.add(List.of(new TimelineEvent(r, Kind.BACKWARD, 0, -1, 0, 0, 10 * MS, true),
                    new TimelineEvent(r, Kind.ALL_REDUCE, 0, 0, 400, reduceAt * MS, (reduceAt + 2) * MS, false),
                    new TimelineEvent(r, Kind.WAIT, 0, -1, 0, 10 * MS, (10 + waitMs) * MS, true)));
        }
        return new TimelineTrace(ranks);
    }

    @Test
    void countsTheAllReducesThatStartedDuringBackwardAndComparesTheWaits() {
        String v = Lesson03Timeline.verdict(trace(10, 4), trace(5, 1));
        assertTrue(v.contains("Without overlap, 0 of 2 all-reduces started before backward ended; with overlap, 2 of 2 did"), v);
        assertTrue(v.contains("waited 4.00 ms for the gradients without overlap and 1.00 ms with it"), v);
        assertTrue(v.contains("overlap moved all-reduce time under backward and shortened the wait"), v);

        String none = Lesson03Timeline.verdict(trace(10, 4), trace(9, 4));
        assertTrue(none.contains("overlap hid little:"), none);

        // two steps say nothing about which step was faster: the sentence leaves that to the table's medians
        String longer = Lesson03Timeline.verdict(trace(10, 4), trace(9, 9));
        assertTrue(longer.contains("overlap hid little") && longer.contains("too few to time it")
                && !longer.contains("step was longer") && !longer.contains("step was shorter"), longer);
    }
}
