package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDriverGetVersion;
import static jcuda.driver.JCudaDriver.cuInit;

import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUresult;

/**
 * Is there a usable GPU, and which ones. The first call probes once per JVM: find and load
 * {@code libcuda.so.1}, put JCuda's driver binding in place ({@link JCudaNatives}) and load it, {@code cuInit},
 * count devices. Without a GPU every method here still works and says why ({@link #unavailableReason()}); only
 * {@link #device(int)} throws, with that reason in its message.
 * <p>Set {@code MPI2NCCL_DISABLE_CUDA=1} to act as if there were no GPU (to try the CPU fallback on a GPU machine).
 */
public final class Cuda {
    /** The probe's outcome: either devices and a driver version, or the reason there are none. */
    private record Probe(int deviceCount, int driverVersion, String reason) {}

    private static Probe probe;
    private static final List<CudaDevice> DEVICES = new ArrayList<>();

    private Cuda() {}

    /** True when at least one GPU can be used. */
    public static boolean isAvailable() {
        return probe().deviceCount > 0;
    }

    /** Why no GPU can be used (null when one can). */
    public static String unavailableReason() {
        return probe().reason;
    }

    /** Number of usable GPUs (0 without a driver or GPU). */
    public static int deviceCount() {
        return probe().deviceCount;
    }

    /** The driver's CUDA version as major*1000 + minor*10 (13000 = 13.0), or 0 when there is no driver. */
    public static int driverVersion() {
        return probe().driverVersion;
    }

    /**
     * GPU number {@code ordinal}.
     *
     * @throws CudaUnavailableException when there is no GPU (saying why) or no GPU with that number
     */
    public static synchronized CudaDevice device(int ordinal) {
        Probe p = probe();
        if (p.deviceCount == 0) {
            throw new CudaUnavailableException("CUDA was requested, but no GPU can be used: " + p.reason
                    + ". Use the CPU backend instead, or run on a machine with an NVIDIA GPU and driver"
                    + " (`mpi2nccl doctor-gpu` lists what was found).");
        }
        if (ordinal < 0 || ordinal >= p.deviceCount) {
            throw new CudaUnavailableException("GPU " + ordinal + " does not exist: this machine has " + p.deviceCount
                    + " GPU(s), numbered 0.." + (p.deviceCount - 1)
                    + " (CUDA_VISIBLE_DEVICES, if set, decides which ones are visible).");
        }
        while (DEVICES.size() <= ordinal) DEVICES.add(null);
        CudaDevice d = DEVICES.get(ordinal);
        if (d == null) {
            d = CudaDevice.open(ordinal);
            DEVICES.set(ordinal, d);
        }
        return d;
    }

    /** Every usable GPU (empty without one). */
    public static List<CudaDevice> devices() {
        List<CudaDevice> out = new ArrayList<>();
        for (int i = 0; i < deviceCount(); i++) out.add(device(i));
        return out;
    }

    private static synchronized Probe probe() {
        if (probe == null) probe = runProbe();
        return probe;
    }

    private static Probe runProbe() {
        String disabled = System.getenv("MPI2NCCL_DISABLE_CUDA");
        if (disabled != null && !disabled.isBlank() && !disabled.equals("0")) {
            return new Probe(0, 0, "CUDA disabled by MPI2NCCL_DISABLE_CUDA=" + disabled);
        }
        LibrarySearch.Result driverLibrary = CudaLibraries.find(NativeLibrary.DRIVER);
        if (!driverLibrary.found()) return new Probe(0, 0, "no NVIDIA driver: " + driverLibrary.explain());
        try {
            CudaLibraries.load(NativeLibrary.DRIVER);
        } catch (CudaUnavailableException e) {
            return new Probe(0, 0, e.getMessage());
        }
        try {
            JCudaNatives.loadDriver();   // from the user's private folder, where JVMs starting at once do not race
        } catch (CudaUnavailableException e) {
            return new Probe(0, 0, e.getMessage());
        } catch (LinkageError e) {
            return new Probe(0, 0, "JCuda's driver binding did not load (" + firstLine(e) + ")");
        }
        int[] value = new int[1];
        int result;
        try {
            result = cuInit(0);
        } catch (LinkageError e) {
            return new Probe(0, 0, "JCuda's driver binding did not load (" + firstLine(e) + ")");
        }
        if (result != CUresult.CUDA_SUCCESS) {
            return new Probe(0, 0, "cuInit failed: " + CUresult.stringFor(result)
                    + (result == CUresult.CUDA_ERROR_NO_DEVICE ? " (the driver sees no GPU; is CUDA_VISIBLE_DEVICES empty?)" : ""));
        }
        cuDriverGetVersion(value);
        int driver = value[0];
        result = cuDeviceGetCount(value);
        if (result != CUresult.CUDA_SUCCESS) {
            return new Probe(0, driver, "cuDeviceGetCount failed: " + CUresult.stringFor(result));
        }
        if (value[0] == 0) return new Probe(0, driver, "the NVIDIA driver reports 0 GPUs");
        return new Probe(value[0], driver, null);
    }

    /** "ExceptionClass: the message's first line", for one-line reports. */
    public static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return e.getClass().getSimpleName() + ": " + (nl < 0 ? m : m.substring(0, nl));
    }

    /** "13.0" for 13000. */
    public static String versionString(int cudaVersion) {
        return cudaVersion / 1000 + "." + (cudaVersion % 1000) / 10;
    }
}
