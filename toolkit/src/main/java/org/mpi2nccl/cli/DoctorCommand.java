package org.mpi2nccl.cli;

import java.util.concurrent.Callable;
import org.mpi2nccl.doctor.Doctor;
import org.mpi2nccl.doctor.MachineReport;
import picocli.CommandLine.Command;

/** {@code mpi2nccl doctor}: the machine report in the terminal; exit status 1 when a check failed. */
@Command(name = "doctor", mixinStandardHelpOptions = true,
        description = "What this machine has for the lessons: cores, memory, Java, MPJ Express, GPUs, CUDA, NCCL.")
public final class DoctorCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        MachineReport report = Doctor.examine();
        System.out.print(report.text());
        return report.healthy() ? 0 : 1;
    }
}
