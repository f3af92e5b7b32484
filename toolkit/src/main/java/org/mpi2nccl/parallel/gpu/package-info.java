/**
 * The data-parallel step of lesson 05's GPU experiment: {@link org.mpi2nccl.parallel.DataParallel}'s step, the same
 * gradients and updates, queued so that a small model's step is not held up by the host. Read the plain step first.
 *
 * <p>Reading order:
 * <ol>
 *   <li>{@link org.mpi2nccl.parallel.gpu.GpuOptions}: what can be switched on;</li>
 *   <li>{@code NcclStreamHook}: the step's comm hook on GPUs (NCCL ordered with the model's stream by CUDA events, the
 *       tail launched as one NCCL group, a CTA-limited communicator beside backward);</li>
 *   <li>{@link org.mpi2nccl.parallel.gpu.GpuDataParallel}: the plain step with that hook, a small last bucket, CUDA
 *       graphs, and every step timed; a {@link org.mpi2nccl.parallel.timing.Timeline} may listen beside the
 *       timer, recording CUDA events (the steps it records run without graphs);</li>
 *   <li>{@code StepGraphs}: which steps are recorded as CUDA graphs and which replay them;</li>
 *   <li>{@code GraphedSteps}: how a step is recorded (NCCL's all-reduces inside or between the graphs) and replayed.</li>
 * </ol>
 * The rank programs beside them run these steps as jobs: {@link org.mpi2nccl.bench.gpu.EquivalenceRank} (the same
 * parameters as one rank), {@link org.mpi2nccl.bench.gpu.TimelineRank} (a recorded timeline) and
 * {@link org.mpi2nccl.bench.gpu.NcclBesideRank} (a recorded graph timed before and beside an NCCL communicator, with
 * {@link org.mpi2nccl.bench.gpu.ForwardGraphProbe}).
 */
package org.mpi2nccl.parallel.gpu;
