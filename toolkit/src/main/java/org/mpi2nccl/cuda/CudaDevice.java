package org.mpi2nccl.cuda;

import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetAttribute;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDeviceGetPCIBusId;
import static jcuda.driver.JCudaDriver.cuDeviceTotalMem;

import java.nio.charset.StandardCharsets;
import jcuda.driver.CUdevice;

/**
 * One GPU: what it is (read without creating a context, so listing GPUs is cheap) and its
 * {@link #context() primary context}, created on first use.
 */
public final class CudaDevice {
    public final int ordinal;
    public final String name;
    public final String pciBusId;
    public final long totalMemoryBytes;
    public final int computeMajor;
    public final int computeMinor;
    public final int multiprocessors;
    public final boolean memoryPools;
    final CUdevice handle;
    private CudaContext context;

    private CudaDevice(int ordinal, CUdevice handle, String name, String pciBusId, long totalMemoryBytes,
                       int computeMajor, int computeMinor, int multiprocessors, boolean memoryPools) {
        this.ordinal = ordinal;
        this.handle = handle;
        this.name = name;
        this.pciBusId = pciBusId;
        this.totalMemoryBytes = totalMemoryBytes;
        this.computeMajor = computeMajor;
        this.computeMinor = computeMinor;
        this.multiprocessors = multiprocessors;
        this.memoryPools = memoryPools;
    }

    static CudaDevice open(int ordinal) {
        CUdevice dev = new CUdevice();
        CudaException.check(cuDeviceGet(dev, ordinal), "cuDeviceGet(" + ordinal + ")");
        byte[] nameBytes = new byte[256];
        CudaException.check(cuDeviceGetName(nameBytes, nameBytes.length, dev), "cuDeviceGetName");
        String[] bus = new String[1];
        String pci = cuDeviceGetPCIBusId(bus, 64, dev) == 0 ? bus[0] : "?";
        long[] mem = new long[1];
        CudaException.check(cuDeviceTotalMem(mem, dev), "cuDeviceTotalMem");
        return new CudaDevice(ordinal, dev, cString(nameBytes), pci, mem[0],
                attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                attribute(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
                attribute(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
                attribute(dev, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED) != 0);
    }

    /** The device's primary context (shared with cudart, cuBLAS and NCCL), created on first call. */
    public synchronized CudaContext context() {
        if (context == null) context = new CudaContext(this);
        return context;
    }

    /** True once {@link #context()} has been called. */
    public synchronized boolean hasContext() {
        return context != null;
    }

    /**
     * "sm90" or "sm75": the PTX build the toolkit loads on this GPU; throws {@link CudaUnavailableException}
     * where its compute capability is older than 7.5.
     */
    public String ptxTarget() {
        return KernelModules.targetFor(computeMajor, computeMinor);
    }

    /** "9.0" */
    public String computeCapability() {
        return computeMajor + "." + computeMinor;
    }

    @Override
    public String toString() {
        return "GPU " + ordinal + ": " + name + " (compute " + computeCapability() + ", " + multiprocessors + " SMs, "
                + totalMemoryBytes / (1024 * 1024) + " MiB, PCI " + pciBusId + ")";
    }

    private static int attribute(CUdevice dev, int attribute) {
        int[] v = new int[1];
        CudaException.check(cuDeviceGetAttribute(v, attribute, dev), "cuDeviceGetAttribute(" + attribute + ")");
        return v[0];
    }

    private static String cString(byte[] bytes) {
        int n = 0;
        while (n < bytes.length && bytes[n] != 0) n++;
        return new String(bytes, 0, n, StandardCharsets.UTF_8);
    }
}
