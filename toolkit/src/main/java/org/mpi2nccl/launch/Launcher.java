package org.mpi2nccl.launch;

import java.util.Locale;
import java.util.Map;

/**
 * Who starts a job's processes. {@link #LOCAL}: this JVM, on this machine. {@link #SLURM}: Slurm, as one job step
 * ({@code srun}) that holds the job's CPUs and GPUs while it runs ({@link SlurmStep}); a lab server configured for
 * Slurm sets {@code MPI2NCCL_LAUNCHER=slurm} for its kernels, and inside a Slurm allocation ({@code SLURM_JOB_ID}
 * set, as torchrun and mpirun read it) Slurm is the default too.
 */
public enum Launcher {
    LOCAL, SLURM;

    /** Names the launcher for every job of this process: local or slurm. */
    public static final String ENV = "MPI2NCCL_LAUNCHER";

    /** "local" or "slurm" (any case). */
    public static Launcher parse(String name) {
        String n = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
        return switch (n) {
            case "local" -> LOCAL;
            case "slurm" -> SLURM;
            default -> throw new MpjLaunchException("unknown launcher '" + name + "': use local (this machine) or"
                    + " slurm (a Slurm job step, srun)");
        };
    }

    /** The launcher {@code env} asks for: {@link #ENV} if set, else Slurm inside an allocation, else local. */
    public static Launcher fromEnvironment(Map<String, String> env) {
        String asked = env.get(ENV);
        if (asked != null && !asked.isBlank()) return parse(asked);
        return env.containsKey("SLURM_JOB_ID") ? SLURM : LOCAL;
    }

    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
