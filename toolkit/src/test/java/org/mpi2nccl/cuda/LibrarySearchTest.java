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
}
