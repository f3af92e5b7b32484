package org.mpi2nccl.cuda;

import java.util.EnumMap;
import java.util.Map;

/**
 * Finds (with {@link LibrarySearch}) and loads the NVIDIA libraries by absolute path, before the JNI
 * bindings that link them are touched. Loading {@code /some/where/libcudart.so.13} first makes the dynamic
 * linker reuse it when JavaCPP's {@code libjnicudart.so} asks for {@code libcudart.so.13} by name, so the
 * folders need not be on {@code LD_LIBRARY_PATH} (which cannot be changed once the JVM runs).
 * Each library is searched and loaded at most once per JVM.
 */
public final class CudaLibraries {
    private static final Map<NativeLibrary, LibrarySearch.Result> FOUND = new EnumMap<>(NativeLibrary.class);
    private static final Map<NativeLibrary, String> LOAD_ERRORS = new EnumMap<>(NativeLibrary.class);
    private static final Map<NativeLibrary, Boolean> LOADED = new EnumMap<>(NativeLibrary.class);

    private CudaLibraries() {}

    /** Where the library is, or what was searched (cached). */
    public static synchronized LibrarySearch.Result find(NativeLibrary library) {
        return FOUND.computeIfAbsent(library, l -> LibrarySearch.ofSystem().find(l));
    }

    /**
     * Loads the library into the JVM by absolute path.
     *
     * @throws CudaUnavailableException saying what was searched, or why loading failed
     */
    public static synchronized void load(NativeLibrary library) {
        if (Boolean.TRUE.equals(LOADED.get(library))) return;
        String earlier = LOAD_ERRORS.get(library);
        if (earlier != null) throw new CudaUnavailableException(earlier);
        LibrarySearch.Result result = find(library);
        if (!result.found()) {
            String why = library.description + ": " + result.explain();
            LOAD_ERRORS.put(library, why);
            throw new CudaUnavailableException(why);
        }
        try {
            System.load(result.path().get().toAbsolutePath().toString());
            LOADED.put(library, true);
        } catch (UnsatisfiedLinkError e) {
            String why = library.description + ": found " + result.path().get() + " but it did not load: " + e.getMessage();
            LOAD_ERRORS.put(library, why);
            throw new CudaUnavailableException(why);
        }
    }

    /** True when {@link #load} succeeded (does not try to load). */
    public static synchronized boolean isLoaded(NativeLibrary library) {
        return Boolean.TRUE.equals(LOADED.get(library));
    }

    /** Loads the CUDA runtime and cuBLAS, the libraries JavaCPP's cudart/cublas bindings link. */
    public static void loadRuntimeAndBlas() {
        for (NativeLibrary l : NativeLibrary.runtimeAndBlas()) load(l);
    }

    /** Loads NCCL (for the communicator lessons: call before touching {@code org.bytedeco.cuda.global.nccl}). */
    public static void loadNccl() {
        load(NativeLibrary.NCCL);
    }
}
