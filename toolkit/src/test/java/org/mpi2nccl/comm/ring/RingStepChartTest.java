package org.mpi2nccl.comm.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;

/** Lesson 02's step picture names each segment in its legend, one colour each, and the cells where nothing was sent. */
class RingStepChartTest {
    @Test
    void everySegmentHasItsOwnLegendEntryAndColour() {
        int[][] grid = {{1, 0, -1}, {0, 1, -1}};
        XYChart chart = RingStepChart.of(grid, 2);
        List<String> names = chart.getSeriesMap().keySet().stream().toList();
        assertEquals(List.of("nothing sent", "segment 0", "segment 1"), names);
        XYSeries s0 = chart.getSeriesMap().get("segment 0"), s1 = chart.getSeriesMap().get("segment 1");
        assertNotEquals(s0.getMarkerColor(), s1.getMarkerColor(), "a segment is a name: each gets a colour of its own");
        // segment 0 was sent by rank 0 at step 1 and by rank 1 at step 0
        assertEquals(List.of(1.0, 0.0), java.util.Arrays.stream(s0.getXData()).boxed().toList());
        assertEquals(List.of(0.0, 1.0), java.util.Arrays.stream(s0.getYData()).boxed().toList());
    }
}
