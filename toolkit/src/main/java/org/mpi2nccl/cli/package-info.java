/**
 * The toolkit's command line ({@code ./build.sh cli SUBCOMMAND}, {@code bin/mpi2nccl SUBCOMMAND} in the GPU
 * bundle): one picocli class per subcommand, each parsing and checking its options and then calling the library
 * package that does the work.
 *
 * <p>Reading order: {@link org.mpi2nccl.cli.Main} lists the subcommands. Then, following the lessons:
 * {@link org.mpi2nccl.cli.DoctorCommand} and {@link org.mpi2nccl.cli.GpuDoctorCommand} (what this machine has;
 * lessons 00 and 06), {@link org.mpi2nccl.cli.MpjRunCommand} and {@link org.mpi2nccl.cli.PartialSumCommand}
 * (MPJ programs on N ranks; lesson 01), {@link org.mpi2nccl.cli.BandwidthCommand} and
 * {@link org.mpi2nccl.cli.BandwidthCompareCommand} (bus bandwidth of the all-reduces; lessons 02 and 04),
 * {@link org.mpi2nccl.cli.SpeedupCommand} (the speedup experiment, {@code ./build.sh run}; lesson 05: its training
 * options are declared once in {@link org.mpi2nccl.bench.SpeedupConfig}, their defaults this machine's preset
 * through {@link org.mpi2nccl.cli.MachineDefaults}). The single-device benchmarks come last:
 * {@link org.mpi2nccl.cli.TrainFashionMnistCommand}, {@link org.mpi2nccl.cli.MatmulBenchCommand},
 * {@link org.mpi2nccl.cli.GpuBenchCommand}. {@link org.mpi2nccl.launch.Converters} holds the option types they share.
 */
package org.mpi2nccl.cli;
