package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class JobBuilderOptionsTest {
    @Test
    void jvmOptionsFromSeveralCallsAddUp() {
        JobBuilder job = Mpj.launch(HostRank.class).jvmArgs("-XX:ActiveProcessorCount=1").jvmArgs("-Xlog:gc", "-Dx=1");
        assertEquals(List.of("-XX:ActiveProcessorCount=1", "-Xlog:gc", "-Dx=1"), job.jvmArgs);
    }
}
