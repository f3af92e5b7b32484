package org.mpi2nccl.comm.shm;

import org.mpi2nccl.comm.CollectiveTimeoutException;
import org.mpi2nccl.comm.ring.CpuClique;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Another user of the machine can neither map the CPU clique's shared memory nor find its rendezvous in /dev/shm
 * itself, and a rank killed during the rendezvous leaves nothing behind once this user starts again.
 */
class SharedMemoryPrivacyTest {
    @Test
    void rendezvousIsInThePrivateFolderAndItsFilesAreOwnerOnly() throws Exception {
        Path base = ShmTransport.base();
        assertEquals("mpi2nccl-" + System.getProperty("user.name"), base.getFileName().toString());
        assertEquals("rwx------", mode(base));
        CpuClique clique = CpuClique.withTimeout(Duration.ofSeconds(5));
        byte[] id = clique.uniqueId();
        Path dir;
        try (var s = Files.list(base)) {
            dir = s.filter(p -> p.getFileName().toString().endsWith(CpuClique.shortName(id))).findFirst().orElseThrow();
        }
        assertEquals("rwx------", mode(dir));
        // rank 0 of 2 claims its place and waits for rank 1, which never comes
        CompletableFuture<Throwable> alone = CompletableFuture.supplyAsync(() -> {
            try {
                clique.initRank(2, id, 0);
                return null;
            } catch (RuntimeException e) {
                return e;
            }
        });
        Path claim = dir.resolve("rank-0");
        long end = System.nanoTime() + 5_000_000_000L;
        while (!Files.exists(claim) && System.nanoTime() < end) Thread.sleep(5);
        assertEquals("rw-------", mode(claim));
        assertTrue(alone.get(20, TimeUnit.SECONDS) instanceof CollectiveTimeoutException);
    }

    @Test
    void anIdCannotNameAFolderOutsideThePrivateOne() {
        byte[] id = CpuClique.withTimeout(Duration.ofSeconds(1)).uniqueId();
        byte[] evil = id.clone();
        byte[] path = "../../tmp/x".getBytes();
        java.util.Arrays.fill(evil, 8, 44, (byte) ' ');
        System.arraycopy(path, 0, evil, 8, path.length);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CpuClique.withTimeout(Duration.ofSeconds(1)).initRank(1, evil, 0));
        assertTrue(e.getMessage().contains("not one uniqueId() makes"), e.getMessage());
    }

    @Test
    void aRendezvousOfAKilledRankIsRemovedByTheNextStart() throws Exception {
        Path killed = Path.of(run("halt").trim());
        assertTrue(Files.isDirectory(killed), "a JVM killed without its shutdown hooks leaves its folder: " + killed);
        Path normal = Path.of(run("exit").trim());
        assertFalse(Files.exists(killed), "the next start removes the folder of the killed JVM: " + killed);
        assertFalse(Files.exists(normal), "a JVM that ends normally removes its own folder: " + normal);
    }

    /** Runs {@link MakeId} in a new JVM; returns the rendezvous folder it made. */
    private static String run(String how) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                MakeId.class.getName(), how).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return out.lines().filter(l -> l.startsWith("/")).findFirst().orElseThrow(() -> new AssertionError(out));
    }

    /** Makes a clique id, prints its folder, then ends normally or is killed ({@code halt}: no shutdown hooks). */
    public static final class MakeId {
        public static void main(String[] args) throws Exception {
            byte[] id = CpuClique.withTimeout(Duration.ofSeconds(1)).uniqueId();
            try (var s = Files.list(ShmTransport.base())) {
                System.out.println(s.filter(p -> p.getFileName().toString().startsWith("clique-" + ProcessHandle.current().pid() + "-")
                        && p.getFileName().toString().endsWith(CpuClique.shortName(id))).findFirst().orElseThrow());
            }
            System.out.flush();
            if (args[0].equals("halt")) Runtime.getRuntime().halt(9);
        }
    }

    private static String mode(Path p) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
    }
}
