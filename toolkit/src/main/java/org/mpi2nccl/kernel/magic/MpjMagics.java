package org.mpi2nccl.kernel.magic;

import io.github.spencerpark.jupyter.kernel.DisplayStream;
import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import org.mpi2nccl.launch.Converters;
import org.mpi2nccl.doctor.Gpus;
import org.mpi2nccl.kernel.jshell.CellError;
import org.mpi2nccl.kernel.jshell.CellGuard;
import org.mpi2nccl.kernel.jshell.Completion;
import org.mpi2nccl.kernel.jshell.SplitCell;
import org.mpi2nccl.kernel.mpj.RankEngines;
import org.mpi2nccl.kernel.mpj.RankResults;
import org.mpi2nccl.launch.MpjDevice;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * {@code %mpj} and {@code %%mpj}: rank engines for the notebook (ipyparallel's {@code %px} idea, for MPJ).
 *
 * <pre>
 * %mpj start -np 4 [--device multicore|niodev]   start 4 engines that keep their state between cells
 * %mpj start -np 2 --one-per-gpu                  the same, or one per GPU where the machine has more GPUs
 * %%mpj                                          run this cell on every engine at once
 * %%mpj -np 2                                    run this cell once on 2 fresh engines, then stop them
 * %mpj status                                    a table of the engines
 * %mpj stop                                      stop the engines
 * %mpj pids                                      the engines' process ids
 * %mpj config --stall 10s                        warn when ranks wait 10 s for others that never come
 * </pre>
 *
 * The device defaults to multicore (ranks are threads of one JVM: starts fastest) on a machine without GPUs and
 * to niodev (a JVM per rank) where there are GPUs, because a GPU library loads into one class loader per JVM.
 */
public final class MpjMagics {
    public static final int DEFAULT_RANKS = 4;

    /** Cuts a cell into JShell snippets (the kernel's own evaluator does it for the engines). */
    public interface Splitter {
        /** {@code firstLine}: the notebook line the code starts on (error messages name notebook lines). */
        SplitCell split(String cell, int firstLine) throws CellError;
    }

    /** The notebook line a {@code %%mpj} cell's body starts on: line 1 is the magic. */
    public static final int BODY_FIRST_LINE = 2;

    private final Splitter splitter;
    private final Supplier<List<String>> classPath;
    private final PrintStream log;
    private final Supplier<DisplayStream> display;
    private volatile RankEngines engines;
    private volatile RankEngines running;
    /** The thread running {@code %mpj start}, which an interrupt stops (it cleans up what it started). */
    private volatile Thread starting;
    /** How the running engines were started, for {@code %mpj restart}. */
    private volatile StartOptions lastStart;

    public MpjMagics(Splitter splitter, Supplier<List<String>> classPath, PrintStream log,
                     Supplier<DisplayStream> display) {
        this.splitter = splitter;
        this.classPath = classPath;
        this.log = log;
        this.display = display;
    }

    @Command(name = "%mpj start", description = "start rank engines")
    static final class StartOptions {
        @Option(names = {"-np", "--ranks"}, description = "number of ranks (default 4)")
        int ranks = DEFAULT_RANKS;

        @Option(names = "--device", description = "multicore or niodev (default: niodev with GPUs, else multicore)")
        String device;

        @Option(names = "--one-per-gpu", description = "on a machine with more GPUs than -np: one rank per GPU instead")
        boolean onePerGpu;

        @Option(names = "--gpus", description = "on a lab run by Slurm: GPUs the engines' job asks for (default: one a"
                + " rank, at most a node's; 0: none, for a lesson without GPUs)")
        Integer gpus;
    }

    @Command(name = "%mpj config", description = "settings of the rank engines")
    static final class ConfigOptions {
        @Option(names = "--stall", description = "warn when ranks wait this long for others (10s; 0 turns it off)")
        String stall;
    }

    @Command(name = "%%mpj", description = "run the cell on the rank engines")
    static final class CellOptions {
        @Option(names = {"-np", "--ranks"}, description = "run once on this many fresh engines")
        Integer ranks;

        @Option(names = "--device", description = "multicore or niodev, with -np")
        String device;
    }

    /** {@code %mpj ACTION ...}. */
    public Object line(List<String> args) throws CellError {
        String action = args.isEmpty() ? "help" : args.get(0);
        List<String> rest = args.isEmpty() ? List.of() : args.subList(1, args.size());
        switch (action) {
            case "start":
                return start(parse(new StartOptions(), rest));
            case "status":
                RankEngines e = engines;
                return e == null || e.isClosed() ? "no rank engines are running (start them with %mpj start -np 4)"
                        : e.status();
            case "stop":
                return stop();
            case "restart":
                return restart();
            case "config":
                return config(parse(new ConfigOptions(), rest));
            case "pids":
                RankEngines running = engines;
                return running == null || running.isClosed() ? List.of() : running.pids();
            case "help":
                return usage();
            default:
                throw new IllegalArgumentException("unknown %mpj action '" + action + "'\n" + usage());
        }
    }

    private String start(StartOptions o) throws CellError {
        RankEngines current = engines;
        if (current != null && !current.isClosed()) {
            throw new IllegalArgumentException(current.size() + " rank engines are running already: %mpj stop them"
                    + " first (or use %%mpj -np N for a one-off cell)");
        }
        MpjDevice device = device(o.device);
        // a lesson written for N ranks uses every GPU of a bigger machine (lessons 04 and 07 on 4 or 8 GPUs)
        int ranks = o.onePerGpu ? Math.max(o.ranks, Gpus.visibleCount()) : o.ranks;
        RankEngines started;
        starting = Thread.currentThread();
        try {
            started = RankEngines.start(ranks, device, classPath.get(), o.gpus, log);
        } finally {
            starting = null;
            Thread.interrupted();   // an interrupt that came as the start ended is not for the next cell
        }
        engines = started;
        lastStart = o;
        return String.format(Locale.ROOT, "%d rank engines ready (%s, %.1f s): run cells on them with %%%%mpj",
                started.size(), device, started.startupTime().toMillis() / 1000.0) + gpuSummary(started);
    }

    private String config(ConfigOptions o) {
        if (o.stall != null) {
            Duration d = Converters.parseDuration(o.stall);
            if (d.isNegative()) {
                throw new IllegalArgumentException("--stall " + o.stall + " is negative: use e.g. --stall 10s (0 turns it off)");
            }
            RankEngines.setStall(d);
        }
        Duration d = RankEngines.stall();
        return d.isZero() ? "stall warnings: off" : "stall warnings: after ranks wait " + d.toMillis() / 1000.0
                + " s for others (then at growing intervals)";
    }

    /** Which GPU each rank took, or why a GPU machine's ranks took none; "" on a machine without GPUs. */
    static String gpuSummary(RankEngines engines) {
        StringBuilder sb = new StringBuilder();
        for (RankEngines.Rank r : engines.ranks()) {
            if (r.gpu() >= 0) {
                sb.append("\n  rank ").append(r.rank()).append(": ").append(r.gpuLabel())
                        .append(r.gpuNote().isEmpty() ? "" : ", " + r.gpuNote());
            }
        }
        if (sb.length() > 0) {
            return "\nOne GPU per rank (variable gpu, EngineRank.device()):" + sb;
        }
        return engines.ranks().stream().map(RankEngines.Rank::gpuNote).filter(n -> !n.isEmpty()).findFirst()
                .map(n -> "\nNo GPU for the ranks: " + n).orElse("");
    }

    /** Stops the running engines and starts new ones as they were started: fresh ranks, no variables. */
    private String restart() throws CellError {
        StartOptions o = lastStart;
        RankEngines e = engines;
        if (o == null || e == null || e.isClosed()) {
            throw new IllegalArgumentException("no rank engines are running to restart: start them with %mpj start -np 4");
        }
        stop();
        return start(o);
    }

    private String stop() {
        RankEngines e = engines;
        engines = null;
        if (e == null || e.isClosed()) {
            return "no rank engines were running";
        }
        e.close();
        return "stopped " + e.size() + " rank engines";
    }

    /**
     * A cell that opens with {@code %mpj} and no action (or with options: {@code %mpj -np 2}) and has code below it
     * was meant for the ranks: {@code %%mpj}. Running that code in the kernel instead would look like it worked.
     */
    public static void refuseLineFormWithCode(List<MagicCell.Part> parts) {
        if (parts.size() < 2 || !(parts.get(0) instanceof MagicCell.LineMagic m) || !m.name().equals("mpj")) return;
        boolean noAction = m.args().isEmpty() || m.args().get(0).startsWith("-");
        if (noAction && parts.get(1) instanceof MagicCell.Code) {
            throw new IllegalArgumentException("line 1 is %mpj" + (m.args().isEmpty() ? "" : " " + String.join(" ", m.args()))
                    + " with code below it, which would run in the kernel, not on the ranks: start the cell with %%mpj"
                    + " (two %) to run it on every rank engine");
        }
    }

    /** {@code %%mpj [-np N] [--device D]} with the cell's body. */
    public DisplayData cell(List<String> args, String body, PrintStream out, PrintStream err) throws CellError {
        CellOptions o = parse(new CellOptions(), args);
        CellGuard.checkNoMpiLifecycle(body, BODY_FIRST_LINE); // the engines own MPI.Init and MPI.Finalize
        SplitCell code = splitter.split(body, BODY_FIRST_LINE); // an incomplete cell fails here, before any engine is started (System.exit too)
        RankEngines target;
        boolean oneShot = o.ranks != null;
        if (oneShot) {
            starting = Thread.currentThread(); // an interrupt during the start stops it, as with %mpj start
            try {
                target = RankEngines.start(o.ranks, device(o.device), classPath.get(), log);
            } finally {
                starting = null;
                Thread.interrupted();
            }
        } else {
            if (o.device != null) {
                throw new IllegalArgumentException("--device goes with -np (a one-off cell) or with %mpj start");
            }
            target = engines;
            if (target == null || target.isClosed()) {
                throw new IllegalArgumentException("no rank engines are running: start them with %mpj start -np 4,"
                        + " or run a one-off cell with %%mpj -np 4");
            }
        }
        RankLinePrinter printer = new RankLinePrinter(out, err, display.get());
        running = target;
        try {
            RankResults results = target.run(code, printer);
            printer.flush();
            if (results.failed()) {
                throw results.combinedError();
            }
            return results.gathered();
        } catch (CellError e) {
            printer.flush();
            if (target.isClosed() && target == engines) {
                engines = null;
            }
            throw e;
        } finally {
            running = null;
            if (oneShot) {
                target.close();
            }
        }
    }

    /** Passes the kernel's interrupt to the ranks of the running cell; false when no %%mpj cell runs. */
    public boolean interrupt() {
        Thread t = starting;
        if (t != null) {
            t.interrupt();
            return true;
        }
        RankEngines r = running;
        if (r == null) {
            return false;
        }
        r.interrupt();
        return true;
    }

    /**
     * Tab completion in a {@code %%mpj} cell's body, against rank 0's state (the variables its cells declared);
     * null when no engines are running, or rank 0 has nothing to offer or does not answer in time.
     */
    public Completion complete(String body, int at) {
        RankEngines e = engines;
        return e == null || e.isClosed() ? null : e.complete(body, at);
    }

    /** Shift-Tab in a {@code %%mpj} cell's body, against rank 0's state; null as for {@link #complete}. */
    public String inspect(String body, int at) {
        RankEngines e = engines;
        return e == null || e.isClosed() ? null : e.inspect(body, at);
    }

    /** Adds jars to the running engines' cells. */
    public void addClassPath(List<String> entries) throws CellError {
        RankEngines e = engines;
        if (e != null && !e.isClosed()) {
            e.addClassPath(entries);
        }
    }

    /** The persistent engines, if running (tests and the benchmark read their pids). */
    public RankEngines engines() {
        return engines;
    }

    /** Stops every engine (kernel shutdown). */
    public void stopAll() {
        RankEngines r = running;
        if (r != null) {
            r.interrupt();
            r.close();
        }
        stop();
    }

    private static MpjDevice device(String name) {
        if (name == null) {
            return Gpus.visibleCount() > 0 ? MpjDevice.NIODEV : MpjDevice.MULTICORE;
        }
        try {
            return MpjDevice.parse(name);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("unknown device '" + name + "': use --device multicore or --device niodev");
        }
    }

    private static <T> T parse(T options, List<String> args) {
        try {
            new CommandLine(options).parseArgs(args.toArray(new String[0]));
            return options;
        } catch (CommandLine.ParameterException e) {
            throw new IllegalArgumentException(e.getMessage() + "\n" + usage());
        }
    }

    static String usage() {
        return String.join("\n",
                "%mpj start -np 4 [--device multicore|niodev]   start rank engines (state kept between cells)",
                "%mpj start -np 2 --one-per-gpu                  ... or one per GPU where there are more GPUs",
                "%mpj start -np 4 --gpus 0                      ... on a lab run by Slurm: no GPU (default: one a rank)",
                "%%mpj                                          run the cell on every rank engine at once",
                "%%mpj -np 2 [--device ...]                     run the cell once on fresh engines",
                "%mpj status                                    the engines: rank, host, pid, state",
                "%mpj stop                                      stop the engines",
                "%mpj restart                                   stop them and start them again (variables are lost)",
                "%mpj config --stall 10s                        warn when ranks wait 10 s for others (0: off)",
                "%mpj pids                                      the engines' process ids (to check none is left)");
    }
}
