package org.mpi2nccl.cli;

import java.util.concurrent.Callable;
import org.mpi2nccl.parallel.timing.TimelineOverhead;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code mpi2nccl bench-timeline}: what recording a {@link org.mpi2nccl.parallel.timing.Timeline} costs a training step. */
@Command(name = "bench-timeline", mixinStandardHelpOptions = true,
        description = "Step time of lesson 03's model on 2 CPU ranks without and with a timeline recording every step,"
                + " in alternating rounds; prints the medians and the overhead in percent.")
public final class TimelineOverheadCommand implements Callable<Integer> {

    @Option(names = "--rounds", description = "rounds, each timing both (default ${DEFAULT-VALUE})", defaultValue = "10")
    int rounds;

    @Option(names = "--steps", description = "steps per round and setting (default ${DEFAULT-VALUE})", defaultValue = "30")
    int steps;

    @Override
    public Integer call() {
        if (rounds < 1 || steps < 1) {
            System.err.println("bench-timeline: --rounds and --steps must be at least 1");
            return 2;
        }
        TimelineOverhead.main(new String[] {Integer.toString(rounds), Integer.toString(steps)});
        return 0;
    }
}
