package org.mpi2nccl.doctor;

import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

import static org.junit.jupiter.api.Assertions.*;

class DoctorTest {
    @Test
    void reportCoversMachineJavaMpjAndGpu() {
        MachineReport r = Doctor.examine();
        assertEquals(Runtime.getRuntime().availableProcessors(), r.cores());
        assertTrue(r.memoryBytes() > 0);
        for (String section : new String[] {"Machine", "Java", "MPJ Express", "GPU"}) {
            assertFalse(r.section(section).isEmpty(), "section " + section + " missing:\n" + r.text());
        }
        assertTrue(r.section("Java").stream().anyMatch(f -> f.item().equals("JShell") && f.status() == Finding.Status.OK));
        assertTrue(r.section("MPJ Express").stream().allMatch(f -> f.status() != Finding.Status.FAIL), r.text());
        if (Gpus.visibleCount() == 0) {
            System.out.println("no GPU: the report must say so plainly");
            assertTrue(r.text().contains("none (no NVIDIA driver, or no GPU in this machine)"), r.text());
        }
        assertTrue(r.html().contains("<td>Machine</td>"));
        assertEquals(r.findings().size(), r.table().rowCount());
    }

    @Test
    void coreScalingHasARowPerThreadCount() {
        Table t = CoreScaling.measure(3, 1);
        assertEquals(3, t.rowCount());
        assertEquals(1.0, t.doubleColumn("speedup").get(0), 1e-12);
        assertTrue(t.doubleColumn("seconds").min() > 0);
        assertEquals(2, CoreScaling.chart(t, 2).getSeriesMap().size());
    }
}
