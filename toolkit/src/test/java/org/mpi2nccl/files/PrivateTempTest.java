package org.mpi2nccl.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each way another user of a shared machine could get at the toolkit's files, refused or cleaned up. */
class PrivateTempTest {
    @Test
    void madeFolderIsPrivateAndOurs(@TempDir Path shared) throws Exception {
        Path dir = PrivateTemp.in(shared);
        assertEquals(shared.toAbsolutePath().resolve("mpi2nccl-" + PrivateTemp.userName()), dir);
        assertEquals("rwx------", mode(dir));
        assertEquals(PrivateTemp.myUid(), Files.getAttribute(dir, "unix:uid"));
        assertEquals(dir, PrivateTemp.in(shared));   // the second use checks and reuses it
        Path job = PrivateTemp.newFolder(dir, "job");
        assertEquals("rwx------", mode(job));
        Path file = Files.createFile(job.resolve("f"), PrivateTemp.fileMode());
        assertEquals("rw-------", mode(file));
    }

    @Test
    void folderOfAnotherUserIsRefused(@TempDir Path shared) throws Exception {
        Path dir = Files.createDirectory(shared.resolve("mpi2nccl-" + PrivateTemp.userName()), PrivateTemp.folderMode());
        Files.setAttribute(dir, "unix:uid", 12345);
        PrivateTempException e = assertThrows(PrivateTempException.class, () -> PrivateTemp.in(shared));
        assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("owned by uid 12345, not you"), e.getMessage());
        assertTrue(e.getMessage().contains("-Djava.io.tmpdir"), e.getMessage());
    }

    @Test
    void folderOpenToOthersIsRefusedNotRepaired(@TempDir Path shared) throws Exception {
        Path dir = Files.createDirectory(shared.resolve("mpi2nccl-" + PrivateTemp.userName()));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        PrivateTempException e = assertThrows(PrivateTempException.class, () -> PrivateTemp.in(shared));
        assertTrue(e.getMessage().contains("open to others (rwxrwxrwx"), e.getMessage());
        assertEquals("rwxrwxrwx", mode(dir));
    }

    @Test
    void symbolicLinkIsRefusedEvenToOurOwnFolder(@TempDir Path shared) throws Exception {
        Path target = Files.createDirectory(shared.resolve("elsewhere"), PrivateTemp.folderMode());
        Path link = Files.createSymbolicLink(shared.resolve("mpi2nccl-" + PrivateTemp.userName()), target);
        PrivateTempException e = assertThrows(PrivateTempException.class, () -> PrivateTemp.in(shared));
        assertTrue(e.getMessage().contains(link + " is a symbolic link"), e.getMessage());
    }

    @Test
    void aFileInPlaceOfTheFolderIsRefused(@TempDir Path shared) throws Exception {
        Files.createFile(shared.resolve("mpi2nccl-" + PrivateTemp.userName()));
        assertTrue(assertThrows(PrivateTempException.class, () -> PrivateTemp.in(shared)).getMessage().contains("not a folder"));
    }

    @Test
    void twoUsersNeverShareAName(@TempDir Path a, @TempDir Path b) {
        Path first = PrivateTemp.newFolder(PrivateTemp.in(a), "trace");
        Path second = PrivateTemp.newFolder(PrivateTemp.in(b), "trace");
        assertFalse(second.startsWith(PrivateTemp.in(a)));
        assertNotEquals(first.getFileName(), second.getFileName());   // even one process gets a new name each time
    }

    @Test
    void leftoversOfADeadProcessAreRemovedOnTheNextStart(@TempDir Path shared) throws Exception {
        Path base = PrivateTemp.in(shared);
        Process p = new ProcessBuilder("true").start();
        long pid = p.pid();
        long start = p.toHandle().info().startInstant().map(i -> i.toEpochMilli()).orElse(0L);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        Path dead = Files.createDirectories(base.resolve("clique-" + pid + "-" + start + "-0123abcd/inside"));
        long me = ProcessHandle.current().pid();
        long myStart = ProcessHandle.current().info().startInstant().get().toEpochMilli();
        Path live = Files.createDirectory(base.resolve("job-" + me + "-" + myStart + "-0123abcd"));
        Path reused = Files.createDirectory(base.resolve("job-" + me + "-" + (myStart - 60_000) + "-0123abcd"));
        Path other = Files.createDirectory(base.resolve("notes"));
        assertEquals(2, PrivateTemp.removeLeftovers(base));
        assertFalse(Files.exists(dead.getParent()), "a dead process's folder stays");
        assertFalse(Files.exists(reused), "a folder of an earlier process with this pid stays");
        assertTrue(Files.exists(live) && Files.exists(other));
    }

    @Test
    void removeDeletesAtOnce(@TempDir Path shared) throws Exception {
        Path job = PrivateTemp.newFolder(PrivateTemp.in(shared), "job");
        Files.writeString(job.resolve("x"), "x");
        PrivateTemp.remove(job);
        assertFalse(Files.exists(job, LinkOption.NOFOLLOW_LINKS));
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }
}
