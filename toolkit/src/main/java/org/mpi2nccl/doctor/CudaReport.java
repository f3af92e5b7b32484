package org.mpi2nccl.doctor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.cuda.global.nccl;
import org.mpi2nccl.cuda.Cublas;
import org.mpi2nccl.cuda.Cuda;
import org.mpi2nccl.cuda.CudaDevice;
import org.mpi2nccl.cuda.CudaLibraries;
import org.mpi2nccl.cuda.Kernel;
import org.mpi2nccl.cuda.LibrarySearch;
import org.mpi2nccl.cuda.NativeLibrary;
import org.mpi2nccl.doctor.Finding.Status;

/**
 * The GPU part of the machine report ({@code mpi2nccl doctor-gpu}, and the GPU section of {@link Doctor}):
 * driver, GPUs, the CUDA libraries (where each was found, its version, or what was searched), the kernels in the
 * jar, and which backend a program gets here. Lessons 04 to 06 need a GPU; this says plainly why there is none.
 * Never throws: every failure becomes a finding saying what is wrong and what to do.
 */
public final class CudaReport {
    private CudaReport() {}

    public static List<Finding> findings() {
        List<Finding> rows = new ArrayList<>();
        gpus(rows);
        libraries(rows);
        kernels(rows);
        environment(rows);
        choice(rows);
        return rows;
    }

    private static void gpus(List<Finding> rows) {
        LibrarySearch.Result driver = CudaLibraries.find(NativeLibrary.DRIVER);
        rows.add(new Finding("GPU", "NVIDIA driver library (" + NativeLibrary.DRIVER.soname + ")",
                driver.found() ? Status.OK : Status.MISSING, driver.explain()));
        int count = safe(Cuda::deviceCount, 0);
        if (count == 0) {
            rows.add(new Finding("GPU", "GPUs", Status.MISSING, "no GPU: " + Cuda.unavailableReason()));
            return;
        }
        rows.add(new Finding("GPU", "CUDA driver", Status.OK, "supports CUDA " + Cuda.versionString(Cuda.driverVersion())
                + (Cuda.driverVersion() < 13000 ? " (the kernels are PTX 9.0 from nvcc 13: a CUDA 13 driver, 580 or newer, is needed)" : "")));
        for (int i = 0; i < count; i++) {
            try {
                CudaDevice d = Cuda.device(i);
                String target;
                try {
                    target = d.ptxTarget();
                } catch (RuntimeException e) {
                    target = "none: " + e.getMessage();
                }
                rows.add(new Finding("GPU", "GPU " + i, Status.OK, d.name + ", compute " + d.computeCapability() + ", "
                        + d.multiprocessors + " SMs, " + d.totalMemoryBytes / (1024 * 1024) + " MiB, PCI " + d.pciBusId
                        + ", kernels: PTX " + target + (d.memoryPools ? "" : ", no memory pools")));
            } catch (RuntimeException e) {
                rows.add(new Finding("GPU", "GPU " + i, Status.FAIL, e.getMessage()));
            }
        }
    }

    private static void libraries(List<Finding> rows) {
        boolean driver = CudaLibraries.find(NativeLibrary.DRIVER).found();
        for (NativeLibrary lib : List.of(NativeLibrary.CUDART, NativeLibrary.CUBLAS_LT, NativeLibrary.CUBLAS, NativeLibrary.NCCL)) {
            LibrarySearch.Result r = CudaLibraries.find(lib);
            String item = lib.description + " (" + lib.soname + ")";
            if (!r.found()) {
                rows.add(new Finding("Libraries", item, Status.MISSING, r.explain()));
                continue;
            }
            if (!driver) {
                // JavaCPP's JNI libraries for cudart, cuBLAS and NCCL all link libcuda.so.1 as well
                rows.add(new Finding("Libraries", item, Status.INFO, r.explain() + "; not loaded: its JavaCPP binding also needs the NVIDIA driver (libcuda.so.1)"));
                continue;
            }
            String version;
            try {
                version = switch (lib) {
                    case CUDART -> {
                        CudaLibraries.load(lib);
                        int[] v = new int[1];
                        cudart.cudaRuntimeGetVersion(v);
                        yield "CUDA runtime " + Cuda.versionString(v[0]);
                    }
                    case CUBLAS -> {
                        int v = Cublas.version();
                        yield "cuBLAS " + v / 10000 + "." + (v / 100) % 100 + "." + v % 100;
                    }
                    case NCCL -> {
                        CudaLibraries.load(NativeLibrary.CUDART);
                        CudaLibraries.loadNccl();
                        int[] v = new int[1];
                        nccl.ncclGetVersion(v);
                        yield "NCCL " + ncclVersion(v[0]);
                    }
                    default -> {
                        CudaLibraries.load(lib);
                        yield "loaded";
                    }
                };
            } catch (RuntimeException | LinkageError e) {
                rows.add(new Finding("Libraries", item, Status.FAIL, r.path().get() + " found but not usable: " + Cuda.firstLine(e)));
                continue;
            }
            rows.add(new Finding("Libraries", item, Status.OK, version + ": " + r.explain()));
        }
    }

    /** 22809 -> "2.28.9" (NCCL >= 2.9 encodes major*10000 + minor*100 + patch). */
    static String ncclVersion(int code) {
        return code / 10000 + "." + (code / 100) % 100 + "." + code % 100;
    }

    private static void kernels(List<Finding> rows) {
        List<String> missing = Kernel.missingPtx();
        if (missing.isEmpty()) {
            rows.add(new Finding("Kernels", "PTX in the toolkit jar", Status.OK, Kernel.all().size() + " kernels in "
                    + Kernel.modules().size() + " modules, for compute_90 and compute_75"));
        } else {
            rows.add(new Finding("Kernels", "PTX in the toolkit jar", Status.MISSING, "missing " + missing
                    + ": the jar was built without nvcc; run ./build.sh setup where nvcc is installed"));
        }
    }

    private static void environment(List<Finding> rows) {
        Map<String, String> env = System.getenv();
        String visible = env.get("CUDA_VISIBLE_DEVICES");
        if (visible != null) rows.add(new Finding("Environment", "CUDA_VISIBLE_DEVICES", Status.INFO, "'" + visible + "'"));
        for (String[] v : new String[][] {{"NCCL_NVLS_ENABLE", "0"}, {"TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"}, {"NVSHMEM_DISABLE_NVLS", "1"}}) {
            String value = env.get(v[0]);
            if (v[1].equals(value)) {
                rows.add(new Finding("Environment", v[0], Status.OK, value + " (NVLink multicast off)"));
            } else if (Cuda.deviceCount() > 0) {
                rows.add(new Finding("Environment", v[0], Status.WARN, (value == null ? "unset" : "'" + value + "'")
                        + ": set " + v[0] + "=" + v[1] + " on shared GPU hosts (NVLink multicast can take GPUs out of service)"));
            }
        }
        if ("1".equals(env.get("MPI2NCCL_CUDA_SYNC"))) rows.add(new Finding("Environment", "MPI2NCCL_CUDA_SYNC", Status.INFO, "1: every kernel launch is waited for (debugging; slow)"));
    }

    private static void choice(List<Finding> rows) {
        if (safe(Cuda::deviceCount, 0) > 0) {
            String name = safe(() -> Cuda.device(0).name, "?");
            rows.add(new Finding("Backend", "default device", Status.OK, "CUDA backend on cuda:0 (" + name + ")"
                    + (Cuda.deviceCount() > 1 ? "; cuda:0.." + (Cuda.deviceCount() - 1) + " available" : "")));
        } else {
            rows.add(new Finding("Backend", "default device", Status.INFO, "CPU backend: no GPU (" + Cuda.unavailableReason()
                    + "). Everything runs on the CPU; asking for Device.cuda(N) fails with this reason."));
        }
    }

    private interface Attempt<T> {
        T get();
    }

    private static <T> T safe(Attempt<T> a, T fallback) {
        try {
            return a.get();
        } catch (RuntimeException | LinkageError e) {
            return fallback;
        }
    }
}
