package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A niodev rank JVM stopped by SIGSTOP while the others wait in a barrier: the launcher names the rank and its pid
 * within seconds and says how to resume it; continued, the rank catches up and the job ends well.
 */
class LauncherStoppedRankTest {
    private static final Pattern STOPPED = Pattern.compile("rank 1 \\(pid (\\d+)\\) is stopped .*kill -CONT (\\d+) resumes it");

    @Test
    void aStoppedRankIsNamedWithItsPidAndTheJobEndsOnceItIsContinued() throws Exception {
        List<String> said = new CopyOnWriteArrayList<>();
        long[] namedAfter = {-1};
        long start = System.nanoTime();
        JobResult r = Mpj.launch(StopsItself.class).device(MpjDevice.NIODEV).ranks(3).timeout(Duration.ofSeconds(60))
                .onLine(l -> {
                    said.add(l.text());
                    Matcher m = STOPPED.matcher(l.text());
                    if (m.find() && namedAfter[0] < 0) {
                        namedAfter[0] = (System.nanoTime() - start) / 1_000_000;
                        try {
                            new ProcessBuilder("kill", "-CONT", m.group(2)).start().waitFor();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }
                }).run();
        assertTrue(namedAfter[0] >= 0, "the stopped rank was named: " + said);
        assertTrue(namedAfter[0] < 15_000, "named within seconds of the start, took " + namedAfter[0] + " ms");
        assertTrue(r.succeeded(), "continued, the job ends well: " + said);
        assertEquals(3, r.lines().stream().filter(l -> l.text().equals("passed the barrier")).count(), said.toString());
    }
}
