package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several JVMs starting at once on an empty {@code java.io.tmpdir} each get JCuda's complete driver binding, and
 * JCuda's own loader, run right after, only loads it. Without a GPU the load then stops at {@code libcuda.so.1}
 * (the binding's own dependency), which the dynamic linker can only name after reading the whole file.
 */
class JCudaNativesTest {
    private static final int JVMS = 6;

    @Test
    void concurrentFirstStartsAllLoadOneCompleteFile(@TempDir Path dir) throws Exception {
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        Path go = dir.resolve("go");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<Process> jvms = new ArrayList<>();
        List<Path> outputs = new ArrayList<>();
        for (int i = 0; i < JVMS; i++) {
            Path out = dir.resolve("jvm" + i + ".txt");
            outputs.add(out);
            jvms.add(new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                    "-Djava.io.tmpdir=" + tmp, Start.class.getName(), go.toString())
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start());
        }
        // Every JVM is up and spinning on the go file before any of them writes: they start as close together as
        // this machine allows, as rank JVMs do.
        Thread.sleep(1500);
        Files.writeString(go, "go");
        String expected = sha256(resource());
        for (int i = 0; i < JVMS; i++) {
            Process p = jvms.get(i);
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                jvms.forEach(Process::destroyForcibly);
                fail("JVM " + i + " did not finish in 120 s: " + Files.readString(outputs.get(i)));
            }
            String out = Files.readString(outputs.get(i));
            assertEquals(0, p.exitValue(), "JVM " + i + " died (134 is the JVM's abort after SIGBUS): " + out);
            assertTrue(out.contains("sha256=" + expected), "JVM " + i + " saw another file than the jar's: " + out);
            assertTrue(out.contains("jcuda: loaded") || out.contains("libcuda.so.1"),
                    "JCuda's loader failed on the file itself rather than on the missing driver: " + out);
        }
        try (Stream<Path> files = Files.list(tmp)) {
            assertEquals(List.of("mpi2nccl-" + System.getProperty("user.name")), files.map(f -> f.getFileName().toString()).toList(),
                    "JCuda wrote nothing in the shared folder, only in the user's private one");
        }
        try (Stream<Path> files = Files.list(tmp.resolve("mpi2nccl-" + System.getProperty("user.name")))) {
            List<String> names = files.map(f -> f.getFileName().toString()).sorted().toList();
            String name = JCudaNatives.driverFileName();
            assertEquals(List.of(name, name + ".lock"), names, "the folder holds the library and its lock, nothing half-written");
        }
    }

    @Test
    void replacesAFileCutShort(@TempDir Path dir) throws Exception {
        byte[] whole = resource();
        Path target = dir.resolve(JCudaNatives.driverFileName());
        Files.write(target, java.util.Arrays.copyOf(whole, 65536));   // what a crash in the middle of a write leaves
        assertEquals(target, JCudaNatives.prepare(dir, JCudaNatives.driverFileName()));
        assertArrayEquals(whole, Files.readAllBytes(target));
        assertTrue(Files.notExists(dir.resolve(JCudaNatives.driverFileName() + ".partial")));
    }

    @Test
    void aMissingNativesJarIsNamed(@TempDir Path dir) {
        CudaUnavailableException e = org.junit.jupiter.api.Assertions.assertThrows(CudaUnavailableException.class,
                () -> JCudaNatives.prepare(dir, "libNoSuchBinding.so"));
        assertTrue(e.getMessage().contains("jcuda-natives"), e.getMessage());
    }

    private static byte[] resource() throws IOException {
        try (InputStream in = jcuda.LibUtils.class.getResourceAsStream("/lib/" + JCudaNatives.driverFileName())) {
            return in.readAllBytes();
        }
    }

    static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    /**
     * One starting JVM: waits for the go file, prepares the binding as {@link Cuda} does, says what file it got,
     * then lets JCuda's own loader at it ({@link JCudaNatives#loadDriver}). With {@code --jcuda-only} it skips the preparation, which shows the race
     * this guards against (run several at once by hand: some die with SIGBUS in ld-linux-x86-64.so.2).
     */
    public static final class Start {
        public static void main(String[] args) throws Exception {
            Path go = Path.of(args[0]);
            long deadline = System.currentTimeMillis() + 60_000;
            while (Files.notExists(go)) {
                if (System.currentTimeMillis() > deadline) throw new IllegalStateException("no go file " + go + " in 60 s");
                Thread.onSpinWait();
            }
            try {
                if (args.length > 1 && args[1].equals("--jcuda-only")) {
                    Class.forName("jcuda.driver.JCudaDriver");
                } else {
                    Path file = JCudaNatives.prepareDriver();
                    System.out.println("sha256=" + sha256(Files.readAllBytes(file)));
                    JCudaNatives.loadDriver();
                }
                System.out.println("jcuda: loaded");
            } catch (LinkageError e) {
                System.out.println("jcuda: " + e.getMessage());
            }
        }
    }
}
