/**
 * The Java kernel for Jupyter that runs every lesson's notebook: cells are Java, evaluated by JShell with the
 * toolkit on the class path, and {@code %mpj}/{@code %%mpj} run cells on MPI ranks (from lesson 01 on).
 *
 * <p>Read {@link org.mpi2nccl.kernel.KernelMain} first (how Jupyter starts it), then
 * {@link org.mpi2nccl.kernel.JavaKernel} (a cell's path: magics, JShell, the result shown). What cells use:
 * {@link org.mpi2nccl.kernel.output.Display} and {@link org.mpi2nccl.kernel.output.Progress} for rich output,
 * {@link org.mpi2nccl.kernel.jshell.CommonImports} for what needs no import. The parts, one sub-package each:
 * {@code kernel.jshell} (evaluating cells), {@code kernel.magic} (the {@code %} commands), {@code kernel.mpj} (rank
 * engines for {@code %%mpj} cells), {@code kernel.render} (charts, tables and images as outputs).
 */
package org.mpi2nccl.kernel;
