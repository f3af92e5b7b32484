/**
 * Where the time of data-parallel training steps goes: forward, backward, the communication backward did not hide,
 * the optimizer. Lessons 03 and 05 print and plot these figures. The plain step ({@link org.mpi2nccl.parallel.DataParallel})
 * knows nothing of timing: a {@link org.mpi2nccl.parallel.timing.StepTimer} listens to it.
 *
 * <p>Reading order:
 * <ol>
 *   <li>{@link org.mpi2nccl.parallel.timing.Phase}: the parts of a step;</li>
 *   <li>{@link org.mpi2nccl.parallel.timing.StepTimer}: listens to the step, counts the all-reduces;</li>
 *   <li>{@link org.mpi2nccl.parallel.timing.TimeBreakdown}: the figures it hands out;</li>
 *   <li>{@code PhaseClock}, {@code HostPhaseClock}, {@code CudaPhaseClock}: how a phase is timed. On a GPU the host
 *       only queues work, so host timestamps would measure launches: CUDA events are recorded on the stream instead
 *       and read a few steps later, which is also where a GPU rank waits for its GPU (bounded, so that a step stuck
 *       on a missing rank fails the rank instead of hanging it).</li>
 * </ol>
 * A {@link org.mpi2nccl.parallel.timing.Timeline} listens to the same steps for a picture instead of sums: when each
 * phase and each bucket's all-reduce ran on each rank ({@link org.mpi2nccl.parallel.timing.TimelineEvent}), written as a
 * Chrome trace or drawn as a chart ({@link org.mpi2nccl.parallel.timing.TimelineTrace}); lessons 03 and 05 draw it. On a
 * GPU ({@link org.mpi2nccl.parallel.gpu.GpuDataParallel}) its times are CUDA events ({@code CudaMarks}) read when the
 * timeline is read. {@code TimelineOverhead} ({@code mpi2nccl bench-timeline}) measures what it costs a step.
 */
package org.mpi2nccl.parallel.timing;
