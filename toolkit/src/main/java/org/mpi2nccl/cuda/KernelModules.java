package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import org.bytedeco.cuda.cudart.CUfunc_st;

/**
 * The kernel modules of one context, each loaded once on first use (the driver JIT-compiles PTX for the GPU it
 * runs on). build.sh compiles every native/NAME.cu three times: NAME.sm90.ptx (compute_90: Hopper and newer),
 * NAME.sm75.ptx (compute_75: any GPU from Turing on) and NAME.sm90.fatbin (Hopper machine code plus the compute_90
 * PTX, loaded in place of NAME.sm90.ptx so that a Hopper GPU runs without compiling); Maven packs them under
 * org/mpi2nccl/cuda/ptx/.
 */
final class KernelModules {
    static final String RESOURCE_FOLDER = "/org/mpi2nccl/cuda/ptx/";

    /** "sm90" or "sm75": which of the two PTX builds this context loads. */
    final String target;
    private final Map<String, CUmodule> modules = new HashMap<>();
    private final Map<Kernel, Handles.FunctionHandle> functions = new IdentityHashMap<>();
    /** JavaCPP's wrappers of the same handles, built once per kernel; read without a lock at every launch. */
    private final Map<Kernel, CUfunc_st> driverFunctions = new ConcurrentHashMap<>();

    KernelModules(String target) {
        this.target = target;
    }

    /** The PTX build for a GPU of this compute capability (the tests load the portable one on a newer GPU too). */
    static String targetFor(int major, int minor) {
        if (major >= 9) return "sm90";
        if (major > 7 || (major == 7 && minor >= 5)) return "sm75";
        throw new CudaUnavailableException("this GPU has compute capability " + major + "." + minor
                + "; the toolkit's kernels need 7.5 (Turing) or newer");
    }

    static String resourceName(String module, String target) {
        return RESOURCE_FOLDER + module + "." + target + ".ptx";
    }

    /** The PTX text of a module as a NUL-terminated byte array (what cuModuleLoadData takes). */
    static byte[] readPtx(String module, String target) {
        String name = resourceName(module, target);
        try (InputStream in = KernelModules.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new CudaUnavailableException("PTX resource " + name + " is not on the class path: the toolkit"
                        + " jar was built without nvcc. Run ./build.sh setup where nvcc exists (it compiles native/).");
            }
            byte[] text = in.readAllBytes();
            return Arrays.copyOf(text, text.length + 1);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + name, e);
        }
    }

    /**
     * The fatbin of a module for the sm90 target (Hopper machine code and the compute_90 PTX), or null where the
     * jar has none.
     */
    static byte[] readFatbin(String module, String target) {
        if (!target.equals("sm90")) return null;
        String name = fatbinName(module);
        try (InputStream in = KernelModules.class.getResourceAsStream(name)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + name, e);
        }
    }

    static String fatbinName(String module) {
        return RESOURCE_FOLDER + module + ".sm90.fatbin";
    }

    /** The kernel's function handle (the occupancy query takes it), loading its module first if needed. The context must be current. */
    synchronized CUfunction function(Kernel kernel) {
        return handle(kernel);
    }

    /**
     * The kernel's function handle as JavaCPP's cuLaunchKernel takes it ({@link DriverLaunch}), loading its module
     * first if needed. The context must be current.
     */
    CUfunc_st driverFunction(Kernel kernel) {
        CUfunc_st f = driverFunctions.get(kernel);
        if (f != null) return f;
        long address;
        synchronized (this) {
            address = handle(kernel).address();
        }
        return driverFunctions.computeIfAbsent(kernel, k -> DriverLaunch.function(address));
    }

    private Handles.FunctionHandle handle(Kernel kernel) {
        Handles.FunctionHandle f = functions.get(kernel);
        if (f != null) return f;
        CUmodule module = modules.get(kernel.module);
        String from = resourceName(kernel.module, target);
        if (module == null) {
            module = new CUmodule();
            // Machine code for the GPU when the jar has it: the driver then has no PTX to compile first.
            byte[] fatbin = readFatbin(kernel.module, target);
            if (fatbin != null) from = fatbinName(kernel.module);
            CudaException.check(cuModuleLoadData(module, fatbin != null ? fatbin : readPtx(kernel.module, target)),
                    "loading module " + from);
            modules.put(kernel.module, module);
        }
        f = new Handles.FunctionHandle();
        CudaException.check(cuModuleGetFunction(f, module, kernel.name),
                "finding kernel " + kernel.name + " in " + from);
        functions.put(kernel, f);
        logFirstLaunch(kernel);
        return f;
    }

    /**
     * With {@code MPI2NCCL_KERNEL_LOG=FILE}, appends "module.cu:name" to FILE the first time a kernel is looked up,
     * i.e. launched (every launch looks its kernel up first): scripts/gpu/cuda-sanitizer.sh compares the log with
     * {@code doctor-gpu --kernels} to say which kernels a sanitizer run covered.
     */
    private static void logFirstLaunch(Kernel kernel) {
        String log = System.getenv("MPI2NCCL_KERNEL_LOG");
        if (log == null || log.isBlank()) return;
        try {
            java.nio.file.Files.writeString(java.nio.file.Path.of(log), kernel + System.lineSeparator(),
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("MPI2NCCL_KERNEL_LOG=" + log + ": cannot append to it", e);
        }
    }

    synchronized int loadedModules() {
        return modules.size();
    }
}
