/**
 * Measuring what the lessons teach: the speedup of data-parallel training over ranks (lesson 05) and the bus
 * bandwidth of collectives, nccl-tests style (lessons 02 and 04). Each experiment is a plain Java API that a
 * notebook cell calls; the {@code org.mpi2nccl.cli} commands call the same API.
 *
 * <p>Reading order, the speedup experiment: {@link org.mpi2nccl.bench.SpeedupConfig} (what every run trains, and
 * the {@code run} command's options), {@link org.mpi2nccl.bench.SpeedupExperiment} (one MPJ job per (route, ranks)
 * pair), {@link org.mpi2nccl.bench.SpeedupRank} (the rank program: data-parallel training, one report per epoch),
 * {@link org.mpi2nccl.bench.SpeedupResults} (medians, speedup, efficiency, rounds), {@link org.mpi2nccl.bench.StepCosts}
 * (the step's cost phase by phase), {@link org.mpi2nccl.bench.SpeedupReport} and
 * {@link org.mpi2nccl.bench.SpeedupPlots} (the report folder and its charts).
 *
 * <p>The bandwidth harness: {@link org.mpi2nccl.bench.BenchSpec} (collective, type, sizes),
 * {@link org.mpi2nccl.bench.BusBandwidth} (nccl-tests' busbw factors), {@link org.mpi2nccl.bench.BenchCase}
 * (one collective call, checked), {@link org.mpi2nccl.bench.BandwidthHarness} (the timed loop over sizes),
 * {@link org.mpi2nccl.bench.RankCommunicators} (the communicators by name), {@link org.mpi2nccl.bench.BandwidthJob}
 * and {@link org.mpi2nccl.bench.BandwidthRankMain} (the harness as an MPJ job), {@link org.mpi2nccl.bench.BenchResults}
 * (table, CSV, plot; {@link org.mpi2nccl.bench.BenchText} reads a printed table back).
 *
 * <p>Smaller pieces: {@link org.mpi2nccl.bench.MatmulBench} (GEMM against NumPy), {@link org.mpi2nccl.bench.ProgressReporter}
 * and {@link org.mpi2nccl.bench.TerminalProgress} (progress bars), {@link org.mpi2nccl.bench.ChartFiles} (PNG files
 * on machines without fonts), {@link org.mpi2nccl.bench.BenchMemory} (where the harness puts its buffers: host or GPU).
 */
package org.mpi2nccl.bench;
