/**
 * What this machine has for the lessons (lesson 00, and {@code mpi2nccl doctor}): cores, memory, Java, MPJ
 * Express, GPUs, CUDA and NCCL, each as {@link org.mpi2nccl.doctor.Finding}s that say plainly what is absent and
 * what that means.
 *
 * <h2>Reading order</h2>
 * <ol>
 *   <li>{@link org.mpi2nccl.doctor.Doctor}: runs every {@link org.mpi2nccl.doctor.DoctorCheck} into a
 *       {@link org.mpi2nccl.doctor.MachineReport} (a table in a notebook, text in a terminal).</li>
 *   <li>The checks: {@link org.mpi2nccl.doctor.MachineCheck}, {@link org.mpi2nccl.doctor.JavaCheck},
 *       {@link org.mpi2nccl.doctor.MpjCheck}, {@link org.mpi2nccl.doctor.GpuCheck}; the GPU part is
 *       {@link org.mpi2nccl.doctor.CudaReport} (also {@code mpi2nccl doctor-gpu} on its own);
 *       {@link org.mpi2nccl.doctor.Gpus} counts GPUs without loading any CUDA library.</li>
 *   <li>{@link org.mpi2nccl.doctor.CoreScaling}: how many ranks can truly run at once here.</li>
 * </ol>
 */
package org.mpi2nccl.doctor;
