package org.mpi2nccl.kernel.mpj;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.files.PrivateTemp;

/** The kernel's socket for its engines: a private folder, a path Linux takes, both directions at once, nothing left. */
class EngineLinkTest {
    @Test
    void anEngineConnectsAndBothSidesTalkAndCloseRemovesTheFolder() throws Exception {
        try (EngineLink link = EngineLink.open()) {
            Path folder = link.path().getParent();
            assertTrue(link.path().startsWith(PrivateTemp.folder()), link.path().toString());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder)));
            try (SocketChannel engineEnd = EngineLink.connect(link.path())) {
                SocketChannel kernelEnd = link.accept(5_000);
                assertNotNull(kernelEnd, "the kernel accepted the engine");
                EngineWire kernel = new EngineWire(kernelEnd);
                EngineWire engine = new EngineWire(engineEnd);
                // A receive waiting on one side does not hold up a send on the same wire.
                Thread waiting = new Thread(() -> {
                    try {
                        engine.receive();
                    } catch (java.io.IOException closed) {
                        // the wire was closed at the end
                    }
                });
                waiting.start();
                Thread.sleep(100);
                JsonObject hello = EngineWire.message("hello");
                engine.send(hello);
                assertEquals("hello", EngineWire.str(kernel.receive(), "type"));
                kernel.send(EngineWire.message("welcome"));
                waiting.join(5_000);
                assertFalse(waiting.isAlive(), "the engine's waiting receive got the kernel's message");
                kernel.close();
            }
            link.close();
            assertFalse(Files.exists(folder), "the socket's folder is removed");
        }
    }

    @Test
    void aTempFolderTooDeepForASocketFallsBackToTheUsersFolderInTmp(@TempDir Path tmp) throws Exception {
        Path deep = Files.createDirectories(tmp.resolve("a-folder-name-that-is-long".repeat(4)));
        String before = System.getProperty("java.io.tmpdir");
        System.setProperty("java.io.tmpdir", deep.toString());
        try (EngineLink link = EngineLink.open()) {
            assertTrue(link.path().toString().length() <= 100, link.path().toString());
            assertTrue(link.path().startsWith(PrivateTemp.in(Path.of("/tmp"))), link.path().toString());
            try (SocketChannel c = EngineLink.connect(link.path())) {
                assertNotNull(link.accept(5_000));
            }
        } finally {
            System.setProperty("java.io.tmpdir", before);
        }
    }
}
