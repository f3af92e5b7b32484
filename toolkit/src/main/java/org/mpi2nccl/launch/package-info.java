/**
 * Starting MPJ Express jobs from Java: the launcher behind every lesson that runs ranks (lesson 01 first, with
 * {@link org.mpi2nccl.launch.PartialSum}; the notebooks' rank engines are started through it too).
 *
 * <p>Read {@link org.mpi2nccl.launch.Mpj} first (how a job is described and run), then
 * {@link org.mpi2nccl.launch.PartialSum}, the first distributed program of the course, and
 * {@link org.mpi2nccl.launch.JobResult} (what a job gives back). How a job runs: {@link org.mpi2nccl.launch.JobBuilder}
 * checks the request, {@link org.mpi2nccl.launch.RunningJob} starts the processes ({@code JobCommands} has their
 * command lines), reads every rank's tagged lines ({@code JobRecords}; {@code RankDeaths} says how a rank's JVM died), and stops everything when the job ends; {@code JobEnding} says
 * why it failed. {@link org.mpi2nccl.launch.MpjHome} and {@link org.mpi2nccl.launch.MpjDaemon} are MPJ's own
 * pieces; {@link org.mpi2nccl.launch.ProcessTree} makes sure no process is left behind. What runs inside the rank
 * JVMs is in {@code launch.rank}. {@link org.mpi2nccl.launch.GpuHello} is the first GPU program, the check that a
 * GPU machine is ready for lessons 04 to 06. {@link org.mpi2nccl.launch.Launcher} says who starts a job's processes: this
 * JVM, or Slurm, where {@link org.mpi2nccl.launch.SlurmStep} runs the whole job as one job step.
 */
package org.mpi2nccl.launch;
