package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class JobBuilderOptionsTest {
    @Test
    void jvmOptionsFromSeveralCallsAddUp() {
        JobBuilder job = Mpj.launch(HostRank.class).jvmArgs("-XX:ActiveProcessorCount=1").jvmArgs("-Xlog:gc", "-Dx=1");
        assertEquals(List.of("-XX:ActiveProcessorCount=1", "-Xlog:gc", "-Dx=1"), job.jvmArgs);
    }

    @Test
    void theRanksGpuWaitEndsBeforeTheJobLimit() {
        assertEquals("-Dmpi2nccl.gpu.waitSeconds=60", Mpj.launch(HostRank.class).gpuWaitOption(), "10 min job: the 60 s default");
        assertEquals("-Dmpi2nccl.gpu.waitSeconds=50", Mpj.launch(HostRank.class).timeout(java.time.Duration.ofSeconds(65)).gpuWaitOption());
        assertEquals("-Dmpi2nccl.gpu.waitSeconds=5", Mpj.launch(HostRank.class).timeout(java.time.Duration.ofSeconds(8)).gpuWaitOption());
    }

    @Test
    void theRanksCommandCarriesTheWaitBeforeTheUsersOptionsSoTheirsWin() throws Exception {
        JobBuilder job = Mpj.launch(HostRank.class).timeout(java.time.Duration.ofSeconds(30)).jvmArgs("-Dmpi2nccl.gpu.waitSeconds=9");
        List<String> cmd = JobCommands.multicore(job, java.nio.file.Path.of("java"), MpjHome.locate(null), List.of("x")).command();
        int ours = cmd.indexOf("-Dmpi2nccl.gpu.waitSeconds=15"), theirs = cmd.indexOf("-Dmpi2nccl.gpu.waitSeconds=9");
        assertTrue(ours >= 0 && theirs > ours, cmd.toString());
    }
}
