package org.mpi2nccl.cuda;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuOccupancyMaxActiveBlocksPerMultiprocessor;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.util.concurrent.atomic.AtomicLong;
import jcuda.driver.CUcontext;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import org.bytedeco.cuda.cudart.CUmemPoolHandle_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.LongPointer;

/**
 * The device's primary context, the one context per GPU that the CUDA runtime also uses, so cudart,
 * cuBLAS and NCCL (JavaCPP) work on the same memory as the toolkit's kernels. It owns:
 * <ul>
 *   <li>one stream on which all of the toolkit's work for this GPU is queued, in order (kernels, cuBLAS,
 *       stream-ordered allocation and free; NCCL calls should use it too: {@link #streamAddress()});</li>
 *   <li>the kernel modules, loaded once; the cuBLAS handle; memory counters;</li>
 *   <li>the launch path ({@link DriverLaunch}): kernels are queued through JavaCPP's binding of the driver's
 *       cuLaunchKernel with their arguments packed into one reusable native block. A small model's training step
 *       is a few hundred launches of kernels that run for microseconds each, so the host's time per launch bounds
 *       the step: this path adds no object and no JNI call per argument to the driver's own call (bench-gpu
 *       --only launch measures what a launch costs).</li>
 * </ul>
 * Device memory comes from CUDA's stream-ordered allocator (cuMemAllocAsync), with the pool told to keep
 * freed memory for reuse instead of returning it to the driver at every synchronization: a training step
 * reuses the previous step's blocks, as PyTorch's caching allocator does.
 * <p>Contexts live as long as the JVM (the driver tears them down at exit), and so does the launch's native
 * parameter block (4 KiB per context).
 */
public final class CudaContext {
    public final CudaDevice device;
    private final CUcontext context = new CUcontext();
    private final Handles.StreamHandle stream = new Handles.StreamHandle();
    private final KernelModules modules;
    private final boolean streamOrdered;
    private final String poolNote;
    private final boolean syncEveryLaunch;
    /** The JavaCPP launch (its native parameter block lives as long as this context). */
    private final DriverLaunch driverLaunch;
    private CUmemPoolHandle_st pool;
    private Cublas cublas;
    private PinnedUploads uploads;
    private final IdleWait idle = new IdleWait(this);
    private volatile CUevent syncEvent;

    final AtomicLong liveBytes = new AtomicLong();
    final AtomicLong liveBuffers = new AtomicLong();
    final AtomicLong peakBytes = new AtomicLong();
    final AtomicLong allocations = new AtomicLong();
    final AtomicLong reclaimedByGc = new AtomicLong();
    // What the host queues per training step (WorkCounts): each launch or library call costs microseconds of
    // host time, which is what bounds a small model's step (the GPU waits for the host).
    private final AtomicLong launches = new AtomicLong();
    private final AtomicLong libraryCalls = new AtomicLong();
    // True while a CUDA graph is recorded from the stream (CudaGraph): nothing may then be queued on the stream
    // except the work recorded, so allocations and frees take the plain, not the stream-ordered, route.
    volatile boolean capturing;
    final java.util.Queue<Runnable> afterCapture = new java.util.concurrent.ConcurrentLinkedQueue<>();

    CudaContext(CudaDevice device) {
        this.device = device;
        CudaException.check(cuDevicePrimaryCtxRetain(context, device.handle), "retaining the primary context of GPU " + device.ordinal);
        CudaException.check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
        // Blocking w.r.t. the legacy default stream: plain cuMemcpy and libraries using stream 0 stay ordered with us.
        CudaException.check(cuStreamCreate(stream, CUstream_flags.CU_STREAM_DEFAULT), "creating the toolkit's stream");
        modules = new KernelModules(KernelModules.targetFor(device.computeMajor, device.computeMinor));
        syncEveryLaunch = "1".equals(System.getenv("MPI2NCCL_CUDA_SYNC"));
        try {
            driverLaunch = new DriverLaunch(stream.address());
        } catch (LinkageError e) {
            throw new CudaUnavailableException("GPU " + device.ordinal + ": JavaCPP's CUDA runtime binding, which launches the"
                    + " kernels, did not load: " + Cuda.firstLine(e));
        }
        String note;
        boolean ordered = device.memoryPools;
        if (!ordered) {
            note = "this GPU has no memory pools: cuMemAlloc/cuMemFree (synchronous, slower)";
        } else {
            note = keepFreedMemoryInPool();
        }
        streamOrdered = ordered;
        poolNote = note;
    }

    /** Tells the default pool to keep freed memory (release threshold = max); needs cudart (JavaCPP). */
    private String keepFreedMemoryInPool() {
        try {
            CudaLibraries.load(NativeLibrary.CUDART);
            CUmemPoolHandle_st p = new CUmemPoolHandle_st();
            int r = cudart.cudaDeviceGetDefaultMemPool(p, device.ordinal);
            if (r != cudart.cudaSuccess) return "cudaDeviceGetDefaultMemPool failed (" + r + "): freed memory returns to the driver at each sync";
            try (LongPointer max = new LongPointer(1)) {
                max.put(-1L);   // UINT64_MAX
                r = cudart.cudaMemPoolSetAttribute(p, cudart.cudaMemPoolAttrReleaseThreshold, max);
            }
            if (r != cudart.cudaSuccess) return "cudaMemPoolSetAttribute failed (" + r + "): freed memory returns to the driver at each sync";
            pool = p;
            return "stream-ordered pool, freed blocks kept for reuse";
        } catch (CudaUnavailableException | LinkageError e) {
            return "stream-ordered pool without cudart (" + Cuda.firstLine(e) + "): freed memory returns to the driver at each sync";
        }
    }

    /** Makes this context current on the calling thread (every entry point calls it; it is cheap). */
    public void makeCurrent() {
        CudaException.check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
    }

    /** The toolkit's stream for this GPU. */
    public CUstream stream() {
        return stream;
    }

    /** The stream's raw handle (a cudaStream_t), for JavaCPP's cuBLAS and NCCL calls. */
    public long streamAddress() {
        return stream.address();
    }

    /**
     * Waits until all work queued on the toolkit's stream is done; reports a kernel failure, if any. Bounded ({@link
     * EventWait}, {@code -Dmpi2nccl.gpu.waitSeconds}): GPU work stuck behind a collective whose peer stopped would
     * otherwise block the host for ever, as {@code cuStreamSynchronize} has no timeout.
     */
    public void synchronize() {
        synchronize(EventWait.WAIT_NANOS);
    }

    /** As {@link #synchronize()}, waiting at most {@code limit}. */
    public void synchronize(java.time.Duration limit) {
        synchronize(limit.toNanos());
    }

    private void synchronize(long limitNanos) {
        makeCurrent();
        String what = "waiting for the GPU (an earlier kernel or copy may have failed)";
        CudaException.check(cuEventRecord(syncEvent(), stream), what);
        EventWait.await(syncEvent, device.ordinal, what, limitNanos);
    }

    /**
     * A bounded wait for all work queued on this GPU, NCCL's included, before a driver call that waits for the whole
     * device with no timeout ({@code cuMemFreeHost}, {@code cuMemFree}): see {@link IdleWait}. Returns false, at once,
     * when an earlier wait on this GPU ran out of time; the memory is then left to the end of the process.
     */
    boolean awaitIdle(String before) {
        return idle.await(before, EventWait.WAIT_NANOS);
    }

    /** As {@link #awaitIdle(String)}, waiting at most {@code limit}. */
    boolean awaitIdle(String before, java.time.Duration limit) {
        return idle.await(before, limit.toNanos());
    }

    /** The event {@link #synchronize} records: made once, without timing (the cheapest kind). */
    private CUevent syncEvent() {
        CUevent e = syncEvent;
        if (e == null) {
            e = new CUevent();
            CudaException.check(cuEventCreate(e, CUevent_flags.CU_EVENT_DISABLE_TIMING), "cuEventCreate");
            syncEvent = e;
        }
        return e;
    }

    /**
     * Runs {@code body} as the one range a profiler started with profiling off records (Nsight Compute's and Nsight
     * Systems' {@code --profile-from-start off}, or {@code nsys --capture-range=cudaProfilerApi}); without a profiler
     * attached, just runs it. Everything queued before is finished first, so the range holds {@code body}'s work only.
     */
    public void profiled(Runnable body) {
        synchronize();
        CudaException.check(jcuda.driver.JCudaDriver.cuProfilerStart(), "cuProfilerStart");
        try {
            body.run();
            synchronize();
        } finally {
            CudaException.check(jcuda.driver.JCudaDriver.cuProfilerStop(), "cuProfilerStop");
        }
    }

    /** Allocates device memory (registered with the calling thread's open {@link MemoryScope}, if any). */
    public DeviceMemory allocate(long bytes) {
        return DeviceMemory.allocate(this, bytes);
    }

    /** Allocates room for {@code count} floats. */
    public DeviceMemory allocateFloats(long count) {
        return allocate(Math.multiplyExact(count, 4L));
    }

    /** Queues a kernel on the toolkit's stream for {@code items} work items (see {@link Kernel.Launch}). */
    public void launch(Kernel kernel, long items, KernelArgs args) {
        launch(modules, kernel, items, args);
    }

    /** Launches from a given module set (the tests run both PTX targets on one GPU this way). */
    void launch(KernelModules from, Kernel kernel, long items, KernelArgs args) {
        checkSignature(kernel, args);
        if (items < 0) throw new IllegalArgumentException(kernel.name + ": negative item count " + items);
        if (items == 0) return;
        makeCurrent();
        int blocks = gridBlocks(kernel.launch, items, device.multiprocessors);
        launches.incrementAndGet();
        int result = driverLaunch.launch(from.driverFunction(kernel), blocks, args);
        // the message is built only on failure: this runs tens of thousands of times a second
        if (result != CUresult.CUDA_SUCCESS) throw new CudaException(result, "launching " + kernel);
        if (syncEveryLaunch) {
            CudaException.check(cuStreamSynchronize(stream), "running " + kernel + " (MPI2NCCL_CUDA_SYNC=1)");
        }
    }

    /** The GPU, its PTX target, GEMM library, allocator and kernel launches, in words (a backend's description). */
    String describe() {
        String gemm;
        try {
            gemm = "cuBLAS" + (cublas().tf32() ? " TF32" : " float32");
        } catch (RuntimeException e) {
            gemm = "cuBLAS unavailable (" + e.getMessage() + ")";
        }
        return device.name + ", compute " + device.computeCapability() + ", " + device.multiprocessors + " SMs, PTX "
                + ptxTarget() + ", GEMM: " + gemm + "; memory: " + allocatorDescription() + "; kernel launches: "
                + launchDescription();
    }

    /** How kernels are launched here, in words (for the doctor and the benchmarks). */
    public String launchDescription() {
        return DriverLaunch.DESCRIPTION;
    }

    /** Counts a call into a CUDA library that queues GPU work (a cuBLAS GEMM) for {@link #workCounts()}. */
    void countLibraryCall() {
        libraryCalls.incrementAndGet();
    }

    /**
     * How much work the host has queued on this GPU so far: the toolkit's kernel launches, library calls
     * (cuBLAS), and device allocations. Cheap (three counters); the difference of two snapshots is what a
     * piece of code costs the host, e.g. launches per training step.
     */
    public WorkCounts workCounts() {
        return new WorkCounts(launches.get(), libraryCalls.get(), allocations.get());
    }

    /**
     * Counters of {@link #workCounts()}.
     *
     * @param launches     kernels launched through {@link #launch}
     * @param libraryCalls calls into CUDA libraries that queue GPU work (cuBLAS GEMMs)
     * @param allocations  device buffers allocated (stream-ordered, each one a driver call, and a free later)
     */
    public record WorkCounts(long launches, long libraryCalls, long allocations) {
        /** This snapshot minus an earlier one. */
        public WorkCounts minus(WorkCounts earlier) {
            return new WorkCounts(launches - earlier.launches, libraryCalls - earlier.libraryCalls, allocations - earlier.allocations);
        }
    }

    /** Blocks for a launch: enough for every item, capped (kernels loop grid-stride) at 32 blocks per SM. */
    static int gridBlocks(Kernel.Launch launch, long items, int multiprocessors) {
        long needed = switch (launch) {
            case PER_ELEMENT -> (items + Kernel.BLOCK_THREADS - 1) / Kernel.BLOCK_THREADS;
            case PER_BLOCK -> items;
            case PER_WARP -> (items * 32 + Kernel.BLOCK_THREADS - 1) / Kernel.BLOCK_THREADS;
        };
        long cap = Math.max(1, multiprocessors) * 32L;
        return (int) Math.max(1, Math.min(needed, cap));
    }

    static void checkSignature(Kernel kernel, KernelArgs args) {
        if (!args.signatureIs(kernel.signature)) {
            throw new IllegalArgumentException("kernel " + kernel + " takes arguments (" + kernel.signature
                    + ") but was given (" + args.signature() + ")");
        }
    }

    /** The cuBLAS handle of this context (created on first use, bound to the toolkit's stream). */
    public synchronized Cublas cublas() {
        if (cublas == null) {
            makeCurrent();
            cublas = new Cublas(this);
        }
        return cublas;
    }

    /** "sm90" or "sm75": the PTX build this context runs. */
    public String ptxTarget() {
        return modules.target;
    }

    int loadedModules() {
        return modules.loadedModules();
    }

    private final java.util.Map<Kernel, Integer> residentBlocks = new java.util.IdentityHashMap<>();

    /**
     * How many blocks of {@link Kernel#BLOCK_THREADS} threads of this kernel one SM keeps resident at once (the
     * driver's occupancy figure: registers and shared memory per block decide it). Asked once per kernel.
     */
    synchronized int residentBlocksPerSm(Kernel kernel) {
        Integer known = residentBlocks.get(kernel);
        if (known != null) return known;
        makeCurrent();
        int[] blocks = new int[1];
        CudaException.check(cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, modules.function(kernel), Kernel.BLOCK_THREADS, 0),
                "asking the occupancy of " + kernel);
        int b = Math.max(1, blocks[0]);
        residentBlocks.put(kernel, b);
        return b;
    }

    /** MPI2NCCL_CUDA_SYNC=1: every launch waits for the GPU (errors surface at the call that caused them). */
    boolean syncEveryLaunch() {
        return syncEveryLaunch;
    }

    boolean streamOrdered() {
        return streamOrdered;
    }

    /** How device memory is allocated here, in words (for the doctor). */
    public String allocatorDescription() {
        return poolNote;
    }

    /** The pinned buffers through which Java arrays are copied to this GPU without waiting for it. */
    synchronized PinnedUploads uploads() {
        if (uploads == null) uploads = new PinnedUploads(this);
        return uploads;
    }

    /** Memory in use: the toolkit's own counters, the pool's, and the driver's view of the whole GPU. */
    public MemoryStats memoryStats() {
        makeCurrent();
        long[] free = new long[1], total = new long[1];
        CudaException.check(cuMemGetInfo(free, total), "cuMemGetInfo");
        long reserved = -1, used = -1;
        if (pool != null) {
            try (LongPointer v = new LongPointer(1)) {
                if (cudart.cudaMemPoolGetAttribute(pool, cudart.cudaMemPoolAttrReservedMemCurrent, v) == cudart.cudaSuccess) reserved = v.get();
                if (cudart.cudaMemPoolGetAttribute(pool, cudart.cudaMemPoolAttrUsedMemCurrent, v) == cudart.cudaSuccess) used = v.get();
            }
        }
        return new MemoryStats(liveBytes.get(), liveBuffers.get(), peakBytes.get(), allocations.get(),
                reclaimedByGc.get(), reserved, used, free[0], total[0]);
    }

    /**
     * Memory figures of one context.
     *
     * @param liveBytes      bytes in DeviceMemory not yet freed
     * @param liveBuffers    DeviceMemory objects not yet freed
     * @param peakBytes      the most liveBytes has been
     * @param allocations    DeviceMemory objects ever allocated
     * @param reclaimedByGc  DeviceMemory objects nobody closed, freed when the garbage collector found them
     * @param poolReserved   bytes the pool holds from the driver (-1 when unknown)
     * @param poolUsed       bytes of the pool handed out (-1 when unknown)
     * @param deviceFree     the driver's free bytes on the GPU (all processes)
     * @param deviceTotal    the GPU's memory
     */
    public record MemoryStats(long liveBytes, long liveBuffers, long peakBytes, long allocations, long reclaimedByGc,
                              long poolReserved, long poolUsed, long deviceFree, long deviceTotal) {}
}
