package org.mpi2nccl.launch;

import org.mpi2nccl.launch.rank.JobHome;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.files.PrivateTemp;
import org.mpi2nccl.launch.rank.Lifeline;

/** A job's MPJ home (its configuration with the job's ports) is made in the user's private folder, 0700. */
class JobHomePrivacyTest {
    @Test
    void theJobHomeIsInThePrivateFolder() throws Exception {
        Path job = MpjHome.locate(null).createJobHome(40100, 40101, 40102);
        try {
            assertEquals(PrivateTemp.folder(), job.getParent());
            assertTrue(job.getFileName().toString().startsWith(JobHome.PREFIX + ProcessHandle.current().pid() + "-"),
                    "named after the launching process: " + job);
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(job)));
            assertTrue(Files.readString(job.resolve("conf/mpjexpress.conf")).contains("mpjexpress.mpjdaemon.port.1=40100"));
        } finally {
            JobHome.delete(job);
        }
        assertFalse(Files.exists(job));
    }

    @Test
    void theJobHomeOfAKilledLauncherIsRemovedByTheNextStart() throws Exception {
        Process p = new ProcessBuilder("true").start();
        long start = p.toHandle().info().startInstant().map(i -> i.toEpochMilli()).orElse(0L);
        p.waitFor();
        Path killed = Files.createDirectories(PrivateTemp.folder()
                .resolve(JobHome.PREFIX + p.pid() + "-" + start + "-0123abcd/conf"));
        PrivateTemp.removeLeftovers(PrivateTemp.folder());
        assertFalse(Files.exists(killed.getParent()));
    }
}
