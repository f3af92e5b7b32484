/**
 * The launcher's code inside the rank JVMs: it starts each rank's main and tags every line the rank prints, so the
 * launcher ({@code org.mpi2nccl.launch}) knows which rank said what and how each one ended.
 *
 * <p>Read {@link org.mpi2nccl.launch.rank.Wire} first (the line format between a rank and the launcher), then
 * {@link org.mpi2nccl.launch.rank.RankMain} (calls the rank's main and reports done or fail) and
 * {@link org.mpi2nccl.launch.rank.TaggedOutput}. The boots are per MPJ device:
 * {@link org.mpi2nccl.launch.rank.MulticoreBoot} (every rank a thread of one JVM, with its own class loader) and
 * {@link org.mpi2nccl.launch.rank.NiodevBoot} (one JVM per rank). {@link org.mpi2nccl.launch.rank.Lifeline} ends
 * these JVMs when the launcher's JVM ends; {@link org.mpi2nccl.launch.rank.DaemonBoot} starts an MPJ daemon with
 * {@link org.mpi2nccl.launch.rank.RankJvmWatch}, which reports how each niodev rank JVM ended, and a niodev rank
 * ends itself when its daemon is gone ({@code ParentWatch}) and says how it leaves ({@code ExitReport}). Lesson 01 is where a student first sees their output.
 */
package org.mpi2nccl.launch.rank;
