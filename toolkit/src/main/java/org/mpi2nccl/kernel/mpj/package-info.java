/**
 * Rank engines: an MPJ job whose ranks each hold a JShell and run the notebook's {@code %%mpj} cells together, so
 * that a cell's collectives work as in a real MPI program (lessons 01 to 06).
 *
 * <p>Read {@link org.mpi2nccl.kernel.mpj.RankEngines} first, the kernel's side: start, run a cell on every rank,
 * interrupt, close. Then {@link org.mpi2nccl.kernel.mpj.RankEngine}, the rank's side, and
 * {@link org.mpi2nccl.kernel.mpj.EngineWire}, the link between them. The start is {@code EngineHandshake}; a
 * cell's outputs and results are gathered by {@code CellCollector} into {@link org.mpi2nccl.kernel.mpj.RankResults}.
 * {@link org.mpi2nccl.kernel.mpj.EngineRank} and {@link org.mpi2nccl.kernel.mpj.EngineGpu} are what a cell knows
 * about its rank and its GPU.
 */
package org.mpi2nccl.kernel.mpj;
