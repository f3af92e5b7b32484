package org.mpi2nccl.cuda;

/**
 * Which binding queues the toolkit's kernels. A small model's training step is bound by the host's time per
 * launch (the GPU waits for it), so the launch path should be as thin as possible: {@link #JAVACPP}.
 * {@code MPI2NCCL_JCUDA_LAUNCH} (read once per JVM) picks the route: {@code 0} JavaCPP, {@code 1} JCuda (the original
 * path), unset {@link #DEFAULT}. {@code mpi2nccl bench-gpu --only launch} times both in one run ({@link LaunchCostBench}).
 */
public enum LaunchRoute {
    /**
     * JavaCPP's binding of the driver's cuLaunchKernel: the arguments are packed into a reusable native block owned
     * by the context ({@link KernelParamBlock}), and the function and stream handles are wrapped once.
     */
    JAVACPP("JavaCPP cuLaunchKernel, arguments packed into a reusable native block"),
    /** JCuda's cuLaunchKernel: a jcuda.Pointer and a Java array per argument, each array pinned by JNI per launch. */
    JCUDA("JCuda cuLaunchKernel, a Java array per argument");

    /** In words, for the doctor and the benchmark. */
    public final String description;

    LaunchRoute(String description) {
        this.description = description;
    }

    /**
     * The route where MPI2NCCL_JCUDA_LAUNCH is unset: JavaCPP, since it passed on the GPU machine
     * (results/device/launch4-check.sh at b745d5f, 2x H200: the 75 GPU tests of cuda, tensor, StepWorkCount and
     * StepGraphs; 3.7-4.3 us of host time per launch where JCuda took 7.8-19.2 us).
     */
    static final LaunchRoute DEFAULT = JAVACPP;

    /** The route MPI2NCCL_JCUDA_LAUNCH asks for (read once). */
    static final LaunchRoute REQUESTED = fromEnvironment(System.getenv("MPI2NCCL_JCUDA_LAUNCH"));

    /** Whether MPI2NCCL_JCUDA_LAUNCH is set, i.e. {@link #REQUESTED} is not just the default. */
    static final boolean CHOSEN = !isUnset(System.getenv("MPI2NCCL_JCUDA_LAUNCH"));

    static LaunchRoute fromEnvironment(String value) {
        if (isUnset(value)) return DEFAULT;
        if (value.equals("0")) return JAVACPP;
        if (value.equals("1")) return JCUDA;
        throw new IllegalArgumentException("MPI2NCCL_JCUDA_LAUNCH=" + value + ": use 1 (launch kernels through JCuda), 0 (through"
                + " JavaCPP), or leave it unset (the default: " + DEFAULT + ")");
    }

    private static boolean isUnset(String value) {
        return value == null || value.isBlank();
    }
}
