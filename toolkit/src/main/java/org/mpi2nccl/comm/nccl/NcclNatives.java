package org.mpi2nccl.comm.nccl;

import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nccl;
import org.bytedeco.javacpp.Loader;

/**
 * Loads the native side of the NCCL binding: JavaCPP's {@code libjninccl.so} needs {@code libnccl.so.2} and
 * {@code libjnicudart.so} needs {@code libcudart.so.13}. When the dynamic linker cannot find them by name,
 * they are looked for ({@code NCCL_HOME}, {@code CUDA_HOME}, {@code LD_LIBRARY_PATH}, the NVIDIA pip wheels
 * in Python's site-packages, the usual system folders) and loaded by absolute path first, so the JNI
 * libraries find them already in the process.
 */
public final class NcclNatives {
    private static String failure;
    private static boolean loaded;

    private NcclNatives() {
    }

    /** Loads cudart and NCCL (once); throws {@link NcclUnavailableException} saying what is missing. */
    public static synchronized void load() {
        if (loaded) {
            return;
        }
        if (failure != null) {
            throw new NcclUnavailableException(failure);
        }
        try {
            preload("libcudart.so.13", "CUDA_HOME", "the CUDA 13 runtime");
            preload("libnccl.so.2", "NCCL_HOME", "NCCL 2");
            Loader.load(cudart.class);
            Loader.load(nccl.class);
            loaded = true;
        } catch (NcclUnavailableException e) {
            failure = e.getMessage();
            throw e;
        } catch (Throwable t) {
            if (find("libcuda.so.1", null) == null) {
                failure = "no NVIDIA driver here (libcuda.so.1 not found)";
            } else if (find("libcudart.so.13", "CUDA_HOME") == null) {
                failure = "the CUDA 13 runtime (libcudart.so.13) was not found: set CUDA_HOME or LD_LIBRARY_PATH";
            } else if (find("libnccl.so.2", "NCCL_HOME") == null) {
                failure = "NCCL (libnccl.so.2) was not found: set NCCL_HOME or LD_LIBRARY_PATH (pip's nvidia-nccl wheels are found too)";
            } else {
                failure = "the NCCL binding did not load: " + t;
            }
            throw new NcclUnavailableException(failure);
        }
    }

    /** Number of CUDA devices, or 0 (with {@link #whyNoGpu()} telling why) when there is no usable GPU. */
    public static synchronized int gpuCount() {
        try {
            load();
            int[] n = {0};
            int err = cudart.cudaGetDeviceCount(n);
            if (err != cudart.cudaSuccess) {
                failure = "cudaGetDeviceCount: " + cudart.cudaGetErrorString(err).getString();
                loaded = false;
                return 0;
            }
            return n[0];
        } catch (NcclUnavailableException e) {
            return 0;
        }
    }

    /** Why {@link #gpuCount()} returned 0 (null if it did not). */
    public static synchronized String whyNoGpu() {
        return failure;
    }

    /** The version of the NCCL library that was loaded, as "2.28.9". */
    public static String version() {
        load();
        int[] v = {0};
        nccl.ncclGetVersion(v);
        int code = v[0];
        // NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z since 2.9
        return (code / 10000) + "." + (code / 100 % 100) + "." + (code % 100);
    }

    /** The first {@code soname} in the search folders, or null. */
    static Path find(String soname, String homeVariable) {
        for (Path dir : folders(homeVariable)) {
            Path lib = dir.resolve(soname);
            if (Files.isRegularFile(lib)) {
                return lib;
            }
        }
        for (String d : List.of("/lib/x86_64-linux-gnu", "/usr/lib/wsl/lib", "/usr/local/nvidia/lib64")) {
            Path lib = Path.of(d, soname);
            if (Files.isRegularFile(lib)) {
                return lib;
            }
        }
        return null;
    }

    private static void preload(String soname, String homeVariable, String what) {
        for (Path dir : folders(homeVariable)) {
            Path lib = dir.resolve(soname);
            if (Files.isRegularFile(lib)) {
                try {
                    System.load(lib.toAbsolutePath().toString());
                    return;
                } catch (UnsatisfiedLinkError e) {
                    throw new NcclUnavailableException(what + ": " + lib + " did not load: " + e.getMessage());
                }
            }
        }
        // Not found in the folders: the dynamic linker may still know it (ldconfig); JavaCPP's load says if not.
    }

    static List<Path> folders(String homeVariable) {
        Set<Path> out = new LinkedHashSet<>();
        String home = homeVariable == null ? null : System.getenv(homeVariable);
        if (home != null && !home.isBlank()) {
            for (String sub : List.of("lib", "lib64", "targets/x86_64-linux/lib")) {
                out.add(Path.of(home, sub));
            }
        }
        String ld = System.getenv("LD_LIBRARY_PATH");
        if (ld != null) {
            for (String d : ld.split(":")) {
                if (!d.isBlank()) {
                    out.add(Path.of(d));
                }
            }
        }
        for (Path prefix : pythonPrefixes()) {
            for (Path py : children(prefix.resolve("lib"), "python3*")) {
                for (String kind : List.of("site-packages", "dist-packages")) {
                    out.addAll(children(py.resolve(kind).resolve("nvidia"), "*").stream().map(p -> p.resolve("lib")).toList());
                }
            }
        }
        for (String d : List.of("/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                "/usr/lib/x86_64-linux-gnu", "/usr/local/lib", "/usr/lib64")) {
            out.add(Path.of(d));
        }
        return out.stream().filter(Files::isDirectory).toList();
    }

    private static List<Path> pythonPrefixes() {
        List<Path> out = new ArrayList<>();
        for (String var : List.of("VIRTUAL_ENV", "CONDA_PREFIX")) {
            String v = System.getenv(var);
            if (v != null && !v.isBlank()) {
                out.add(Path.of(v));
            }
        }
        out.addAll(children(Path.of("/opt"), "*").stream().map(p -> p.resolve(".venv")).toList());
        out.add(Path.of("/usr/local"));
        out.add(Path.of("/usr"));
        String home = System.getenv("HOME");
        if (home != null) {
            out.add(Path.of(home, ".local"));
        }
        return out;
    }

    private static List<Path> children(Path dir, String glob) {
        List<Path> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, glob)) {
            s.forEach(out::add);
        } catch (Exception e) {
            // unreadable folder: skip it
        }
        out.sort(null);
        return out;
    }
}
