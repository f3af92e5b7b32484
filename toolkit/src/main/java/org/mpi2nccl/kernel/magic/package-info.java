/**
 * The kernel's {@code %} commands, with IJava's rules for line and cell magics.
 *
 * <p>Read {@link org.mpi2nccl.kernel.magic.MagicCell} first (how a cell is cut into magics and code), then
 * {@link org.mpi2nccl.kernel.magic.MpjMagics}: {@code %mpj start -np N} and {@code %%mpj}, used from lesson 01 on to
 * run a cell on every rank at once. {@link org.mpi2nccl.kernel.magic.RankLinePrinter} shows the ranks' lines as they
 * arrive; {@link org.mpi2nccl.kernel.magic.ClasspathMagics} is {@code %jars} and {@code %classpath}.
 * {@link org.mpi2nccl.kernel.magic.HabitMagics} registers the rest of IJava's and IPython's habits: {@code %maven} and
 * {@code %%loadFromPOM} (through {@link org.mpi2nccl.kernel.magic.MavenResolver}), {@code %load}, {@code %%writefile},
 * {@code %%html} and {@code %%markdown}.
 */
package org.mpi2nccl.kernel.magic;
