package org.mpi2nccl.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import org.mpi2nccl.bench.SpeedupConfig;
import org.mpi2nccl.bench.SpeedupExperiment;
import org.mpi2nccl.bench.SpeedupReport;
import org.mpi2nccl.bench.SpeedupResults;
import org.mpi2nccl.bench.TerminalProgress;
import org.mpi2nccl.data.FashionMnist;
import org.mpi2nccl.parallel.gpu.Route;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * {@code ./build.sh run}: the speedup experiment of lesson 05 with the embedded defaults (GPUs: the lesson CNN on
 * Fashion-MNIST over NCCL and MPI on every GPU count; no GPU: a Fashion-MNIST subset on 1 and 2 CPU ranks over
 * MPI), or with any setting changed by an option. The training settings are {@link SpeedupConfig}'s options,
 * their defaults this machine's preset ({@link MachineDefaults}). Prints the summary table and writes the report.
 */
@Command(name = "run", aliases = "speedup", mixinStandardHelpOptions = true, sortOptions = false,
        defaultValueProvider = MachineDefaults.class,
        description = {"The main job: data-parallel training on 1, 2, ... ranks over each route (NCCL, MPI host-staged;",
                "MPI only on CPUs), timing every epoch. Writes epochs.csv, summary.csv, index.html and PNG charts",
                "(speedup with the ideal line, efficiency, time breakdown per route, all-reduce phases, accuracy).",
                "Without options: the embedded default for this machine (GPUs if any, else CPU ranks on a subset)."})
public final class SpeedupCommand implements Callable<Integer> {
    @Option(names = "--routes", split = ",", description = "mpi, shm, ring, nccl (default: nccl,mpi with GPUs, shm,mpi without)")
    List<String> routes;

    @Option(names = "--ranks", split = ",", description = "rank counts, e.g. 1,2 (default: 1..GPUs, or 1,2[,4] CPU ranks)")
    List<Integer> ranks;

    @Mixin
    SpeedupConfig config;

    @Option(names = "--rounds", description = {"run every (route, ranks) pair this many times, in turn (1, 2, ..., then",
            "again): the summary gives the pooled speedup, each round's against its own 1 rank, and their median (default 1)"})
    int rounds = 1;

    @Option(names = "--first-round", description = {"the number of the first round (default 1): one round at a time, alternated",
            "with a peer's run, numbered so that the merged CSVs pair each round with the peer's"})
    int firstRound = 1;

    @Option(names = "--from-csv", split = ",", description = {"no training: the report of recorded per-epoch CSV files",
            "(epochs.csv of other runs, a peer's CSV such as PyTorch DDP's), merged"})
    List<Path> fromCsv;

    @Option(names = "--out", description = "report folder (default $MPI2NCCL_REPORT_DIR, else build/report: ${DEFAULT-VALUE})",
            defaultValue = "${env:MPI2NCCL_REPORT_DIR:-build/report}")
    Path out;

    @Option(names = "--run-timeout", description = "longest one (route, ranks) run may take, seconds (default ${DEFAULT-VALUE})",
            defaultValue = "1200")
    long runTimeoutSeconds;

    @Spec
    CommandSpec spec;

    /** Where the report goes and how long to wait change nothing measured: the report's command line leaves them out. */
    private static final Set<String> NOT_REPEATED = Set.of("--from-csv", "--out", "--run-timeout", "--help", "--version");

    @Override
    public Integer call() throws IOException {
        if (fromCsv != null) return fromRecorded();
        SpeedupExperiment exp;
        try {
            if (given("--batch-per-rank") && given("--global-batch")) {
                throw new IllegalArgumentException("give --batch-per-rank or --global-batch, not both");
            }
            List<Route> rs = routes != null ? routes.stream().map(Route::parse).toList() : SpeedupExperiment.routesFor(config.device);
            List<Integer> ns = ranks != null ? ranks : SpeedupExperiment.rankCountsFor(config.device);
            if (rounds < 1) throw new IllegalArgumentException("--rounds must be at least 1, got " + rounds);
            if (runTimeoutSeconds < 1) throw new IllegalArgumentException("--run-timeout must be at least 1 s, got " + runTimeoutSeconds);
            exp = new SpeedupExperiment(config, rs, ns).rounds(rounds).firstRound(firstRound);
            OutputPlace.requireWritable(out, "--out");   // before minutes of training, not after
            // the ranks would find a missing folder only after their JVMs started ("{rank}": one folder per rank, not checked here)
            if (config.data.equals("fashion") && (config.dataDir == null || !config.dataDir.toString().contains("{rank}"))) {
                FashionMnist.requirePresent(config.dataDir != null ? config.dataDir : FashionMnist.defaultDir());
            }
        } catch (IllegalArgumentException | java.io.UncheckedIOException e) {
            System.err.println("run: " + e.getMessage());
            return 2;
        }
        exp.progress(TerminalProgress.onStdout()).runTimeout(Duration.ofSeconds(runTimeoutSeconds));
        long t0 = System.nanoTime();
        SpeedupResults r = exp.run();
        System.out.println();
        System.out.println("Summary (" + r.machine() + "; " + exp.config().describe() + "):");
        System.out.println(SpeedupReport.text(r));
        if (r.epochs().rowCount() > 0) {
            List<Path> files = SpeedupReport.write(r, out, "mpi2nccl run " + String.join(" ", commandLine()));
            System.out.println("report: " + out.toAbsolutePath().resolve("index.html") + " (" + files.size() + " files: "
                    + String.join(", ", files.stream().map(p -> p.getFileName().toString()).toList()) + ")");
        }
        System.out.printf(Locale.ROOT, "experiment took %.0f s%n", (System.nanoTime() - t0) / 1e9);
        if (!r.failures().isEmpty()) {
            System.err.println("run: " + r.failures().size() + " run(s) failed:");
            r.failures().forEach(f -> System.err.println("  " + f));
            return 1;
        }
        return 0;
    }

    private int fromRecorded() throws IOException {
        SpeedupResults r;
        try {
            r = SpeedupResults.fromCsv(fromCsv);
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("run: " + e.getMessage());
            return 2;
        }
        System.out.println("Summary (" + r.machine() + "; " + r.settings() + "):");
        System.out.println(SpeedupReport.text(r));
        SpeedupReport.write(r, out, "mpi2nccl run --from-csv " + String.join(",", fromCsv.stream().map(Path::toString).toList()));
        System.out.println("report: " + out.toAbsolutePath().resolve("index.html"));
        return 0;
    }

    private boolean given(String option) {
        return spec.commandLine().getParseResult().hasMatchedOption(option);
    }

    /** The options given, in the order of the help, as the report's "command:" line repeats them. */
    List<String> commandLine() {
        ParseResult given = spec.commandLine().getParseResult();
        List<String> said = new ArrayList<>();
        for (OptionSpec o : spec.options()) {
            if (!given.hasMatchedOption(o) || NOT_REPEATED.contains(o.longestName())) continue;
            Object v = o.getValue();
            if (v instanceof Boolean on && o.arity().max() == 0) {
                String name = o.longestName().replaceFirst("^--no-", "--");     // the flag as it reads when on
                said.add(on ? name : name.replaceFirst("^--", "--no-"));
            } else {
                said.add(o.longestName() + " " + MachineDefaults.text(v));
            }
        }
        return said;
    }
}
