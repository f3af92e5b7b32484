package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Library discovery on fake file-system trees: order of the places searched and the messages when nothing is found. */
class LibrarySearchTest {
    @TempDir
    Path root;

    private Path lib(String folder, String file) throws IOException {
        Path dir = root.resolve(folder.substring(1));
        Files.createDirectories(dir);
        Path f = dir.resolve(file);
        Files.writeString(f, "not really ELF");
        return f;
    }

    @Test
    void ncclHomeWinsOverLdLibraryPathAndSitePackages() throws IOException {
        Path home = lib("/work/nccl/lib", "libnccl.so.2");
        lib("/elsewhere/lib", "libnccl.so.2");
        lib("/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib", "libnccl.so.2");
        LibrarySearch s = new LibrarySearch(Map.of("NCCL_HOME", "/work/nccl", "LD_LIBRARY_PATH", "/elsewhere/lib"), root);
        LibrarySearch.Result r = s.find(NativeLibrary.NCCL);
        assertEquals(home, r.path().orElseThrow());
        assertEquals("NCCL_HOME", r.foundVia());
    }

    @Test
    void ldLibraryPathBeforePythonWheelsBeforeSystemFolders() throws IOException {
        lib("/usr/lib/x86_64-linux-gnu", "libcudart.so.13");
        Path wheel = lib("/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib", "libcudart.so.13");
        LibrarySearch noLd = new LibrarySearch(Map.of(), root);
        assertEquals(wheel, noLd.find(NativeLibrary.CUDART).path().orElseThrow(), "wheels before system folders");
        assertEquals("Python site-packages", noLd.find(NativeLibrary.CUDART).foundVia());

        Path ld = lib("/custom/cuda", "libcudart.so.13");
        LibrarySearch withLd = new LibrarySearch(Map.of("LD_LIBRARY_PATH", "/nonexistent::/custom/cuda"), root);
        assertEquals(ld, withLd.find(NativeLibrary.CUDART).path().orElseThrow());
        assertEquals("LD_LIBRARY_PATH", withLd.find(NativeLibrary.CUDART).foundVia());
    }

    @Test
    void sitePackagesOfPythonsOnThePathAndVirtualEnvAreSearched() throws IOException {
        Path viaPath = lib("/srv/py/lib/python3.11/site-packages/nvidia/cublas/lib", "libcublas.so.13");
        LibrarySearch s = new LibrarySearch(Map.of("PATH", "/usr/bin:/srv/py/bin"), root);
        assertEquals(viaPath, s.find(NativeLibrary.CUBLAS).path().orElseThrow());

        Path viaVenv = lib("/home/u/env/lib/python3.13/site-packages/nvidia/cublas/lib", "libcublasLt.so.13");
        LibrarySearch v = new LibrarySearch(Map.of("VIRTUAL_ENV", "/home/u/env"), root);
        assertEquals(viaVenv, v.find(NativeLibrary.CUBLAS_LT).path().orElseThrow());
    }

    @Test
    void cudaHomeLayoutsAreSearched() throws IOException {
        Path targets = lib("/opt/cuda-13/targets/x86_64-linux/lib", "libcublas.so.13");
        LibrarySearch s = new LibrarySearch(Map.of("CUDA_HOME", "/opt/cuda-13"), root);
        LibrarySearch.Result r = s.find(NativeLibrary.CUBLAS);
        assertEquals(targets, r.path().orElseThrow());
        assertEquals("CUDA_HOME", r.foundVia());
    }

    @Test
    void aWrongVersionIsNamedInTheMessage() throws IOException {
        lib("/usr/local/cuda/lib64", "libcudart.so.12");
        LibrarySearch.Result r = new LibrarySearch(Map.of(), root).find(NativeLibrary.CUDART);
        assertFalse(r.found());
        String why = r.explain();
        assertTrue(why.contains("libcudart.so.13 not found"), why);
        assertTrue(why.contains("libcudart.so.12"), why);
        assertTrue(why.contains("CUDA_HOME"), why);
    }

    @Test
    void nothingFoundSaysWhatWasSearchedAndWhatToSet() throws IOException {
        Files.createDirectories(root.resolve("usr/lib/x86_64-linux-gnu"));
        LibrarySearch.Result nccl = new LibrarySearch(Map.of("LD_LIBRARY_PATH", "/usr/lib/x86_64-linux-gnu"), root).find(NativeLibrary.NCCL);
        assertFalse(nccl.found());
        assertTrue(nccl.explain().contains("NCCL_HOME"), nccl.explain());
        assertTrue(nccl.explain().contains("LD_LIBRARY_PATH: 1"), nccl.explain());
        LibrarySearch.Result driver = new LibrarySearch(Map.of(), root).find(NativeLibrary.DRIVER);
        assertTrue(driver.explain().contains("NVIDIA driver"), driver.explain());
    }

    @Test
    void theNewestNcclIsPickedAndTheOthersAreNamed() throws IOException {
        // the system's 2.28.3 (a link to its versioned file), PyTorch's wheel 2.28.9 (version in the dist-info),
        // another copy whose version is only in its banner (2.27.5)
        Path sysDir = root.resolve("usr/lib/x86_64-linux-gnu");
        Files.createDirectories(sysDir);
        Files.writeString(sysDir.resolve("libnccl.so.2.28.3"), "not really ELF");
        Files.createSymbolicLink(sysDir.resolve("libnccl.so.2"), Path.of("libnccl.so.2.28.3"));
        Path wheel = lib("/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib", "libnccl.so.2");
        Files.createDirectories(root.resolve("opt/torch/.venv/lib/python3.12/site-packages/nvidia_nccl_cu13-2.28.9.dist-info"));
        Path banner = lib("/custom/nccl", "libnccl.so.2");
        Files.write(banner, "\0\0ELF junk NCCL version 2.27.5+cuda12.9\0more".getBytes(java.nio.charset.StandardCharsets.US_ASCII));

        LibrarySearch s = new LibrarySearch(Map.of("LD_LIBRARY_PATH", "/usr/lib/x86_64-linux-gnu:/custom/nccl"), root);
        LibrarySearch.Result r = s.find(NativeLibrary.NCCL);
        assertEquals(wheel, r.path().orElseThrow(), "the wheel's 2.28.9 beats LD_LIBRARY_PATH's 2.28.3");
        assertEquals("2.28.9", r.version());
        assertEquals(2, r.passedOver().size(), r.passedOver().toString());
        String explained = r.explain();
        assertTrue(explained.contains("the newest of 3") && explained.contains("2.28.3") && explained.contains("2.27.5"), explained);

        // NCCL_HOME is the caller's choice, even when older
        LibrarySearch home = new LibrarySearch(Map.of("NCCL_HOME", "/custom", "LD_LIBRARY_PATH", "/usr/lib/x86_64-linux-gnu"), root);
        Files.createDirectories(root.resolve("custom/lib"));
        Files.copy(banner, root.resolve("custom/lib/libnccl.so.2"));
        LibrarySearch.Result h = home.find(NativeLibrary.NCCL);
        assertEquals(root.resolve("custom/lib/libnccl.so.2"), h.path().orElseThrow());
        assertEquals("2.27.5", h.version());
        assertTrue(h.explain().contains("set by NCCL_HOME"), h.explain());
    }

    @Test
    void ncclVersionsCompareNumerically() {
        assertTrue(LibraryVersion.compare("2.28.10", "2.28.9") > 0);
        assertTrue(LibraryVersion.compare("2.28.3", "2.28.9") < 0);
        assertTrue(LibraryVersion.compare(null, "2.0.0") < 0, "an unknown version is older than any");
        assertEquals(0, LibraryVersion.compare("2.28", "2.28.0"));
    }

    @Test
    void aBannerCutBetweenTwoReadPiecesIsStillFound() throws IOException {
        Path f = root.resolve("big.so");
        byte[] data = new byte[(1 << 20) + 100];
        byte[] banner = "NCCL version 2.21.5+cuda12.4".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        System.arraycopy(banner, 0, data, (1 << 20) - 15, banner.length);    // straddles the first 1 MiB piece
        Files.write(f, data);
        assertEquals("2.21.5", LibraryVersion.fromBanner(f).orElseThrow());
    }
}
