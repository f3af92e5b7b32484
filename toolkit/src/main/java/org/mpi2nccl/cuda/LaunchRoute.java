package org.mpi2nccl.cuda;

/**
 * Which binding queues the toolkit's kernels. A small model's training step is bound by the host's time per
 * launch (the GPU waits for it), so the launch path is kept as thin as possible: {@link #JAVACPP} by default;
 * {@link #JCUDA}, the original path, stays selectable with {@code MPI2NCCL_JCUDA_LAUNCH=1} (read once per JVM) to
 * compare the two, and {@code mpi2nccl bench-gpu --only launch} times both in one run ({@link LaunchCostBench}).
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

    /** The route MPI2NCCL_JCUDA_LAUNCH asks for: JCUDA when it is 1, JAVACPP otherwise (read once). */
    static final LaunchRoute REQUESTED = fromEnvironment(System.getenv("MPI2NCCL_JCUDA_LAUNCH"));

    static LaunchRoute fromEnvironment(String value) {
        if (value == null || value.isBlank() || value.equals("0")) return JAVACPP;
        if (value.equals("1")) return JCUDA;
        throw new IllegalArgumentException("MPI2NCCL_JCUDA_LAUNCH=" + value + ": use 1 (launch kernels through JCuda) or 0/unset (JavaCPP)");
    }
}
