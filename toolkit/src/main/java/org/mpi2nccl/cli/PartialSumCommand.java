package org.mpi2nccl.cli;

import org.mpi2nccl.launch.Converters;
import static com.google.common.base.Preconditions.checkArgument;

import java.time.Duration;
import java.util.concurrent.Callable;
import org.mpi2nccl.launch.JobResult;
import org.mpi2nccl.launch.Mpj;
import org.mpi2nccl.launch.MpjDevice;
import org.mpi2nccl.launch.MpjJobException;
import org.mpi2nccl.launch.MpjLaunchException;
import org.mpi2nccl.launch.PartialSum;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import tech.tablesaw.api.Table;

/**
 * {@code mpi2nccl partial-sum}: the partial-sum lesson: N ranks each add up a block of 1..N and Allreduce the
 * partial sums; prints a table (rank, range, partial, allreduced, expected, time) and fails when any rank's
 * total is not N(N+1)/2.
 */
@Command(name = "partial-sum", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Partial sums over MPJ ranks, combined with Allreduce (the first distributed program).")
public final class PartialSumCommand implements Callable<Integer> {
    @Option(names = {"-np", "--ranks"}, description = "ranks (default ${DEFAULT-VALUE})", defaultValue = "4")
    int ranks;

    @Option(names = {"-dev", "--device"}, description = "multicore or niodev (default ${DEFAULT-VALUE})",
            defaultValue = "multicore", converter = Converters.MpjDeviceConverter.class)
    MpjDevice device;

    @Option(names = "-n", description = "sum 1..N (default ${DEFAULT-VALUE})", defaultValue = "100000000")
    long n;

    @Option(names = "--timeout", description = "default ${DEFAULT-VALUE}", defaultValue = "120s",
            converter = Converters.DurationConverter.class)
    Duration timeout;

    /** The largest N whose N(N+1) still fits in a long, so that every rank's total and the expected one are exact. */
    static final long MAX_N = 3_037_000_499L;

    /** Checked before any rank starts: a bad N would otherwise run, and the sum's check would blame the program. */
    void validate() {
        checkArgument(n >= 1 && n <= MAX_N, "-n must be between 1 and %s, got %s", MAX_N, n);
        checkArgument(ranks >= 1, "-np must be at least 1, got %s", ranks);
        checkArgument(!timeout.isNegative() && !timeout.isZero(), "--timeout must be positive, got %s", timeout);
    }

    @Override
    public Integer call() {
        validate();
        System.out.printf("Sum of 1..%d on %d MPJ ranks (%s), partial sums combined with Allreduce(SUM)%n",
                n, ranks, device);
        JobResult r;
        try {
            r = Mpj.launch(PartialSum.class).ranks(ranks).device(device).args(Long.toString(n)).timeout(timeout)
                    .onLine(System.out::println).run();
        } catch (MpjLaunchException | MpjJobException e) {
            System.err.println("partial-sum: " + e.getMessage());
            return 1;
        }
        Table t = r.reportTable().sortAscendingOn("rank");
        Table shown = t.selectColumns("rank", "range", "partial", "allreduced", "expected", "compute_ms", "total_ms");
        System.out.println(shown.printAll());
        long expected = n * (n + 1) / 2;
        boolean ok = t.rowCount() == ranks
                && t.longColumn("allreduced").asList().stream().allMatch(v -> v == expected);
        System.out.printf("%s: every rank's Allreduce total %s %d; job took %.2f s (JVM start included)%n",
                ok ? "OK" : "WRONG", ok ? "equals" : "does not equal", expected, r.elapsed().toMillis() / 1000.0);
        return ok ? 0 : 1;
    }
}
