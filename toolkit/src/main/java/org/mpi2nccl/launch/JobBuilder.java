package org.mpi2nccl.launch;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.MalformedURLException;
import java.net.ServerSocket;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Describes one MPJ job; made by {@link Mpj#launch}. Every setter returns this builder; {@link #run()}
 * runs the job and waits, {@link #start()} returns at once with a {@link RunningJob}.
 */
public final class JobBuilder {
    /** The flag every JVM we start gets (the toolkit uses native libraries; required quiet on Java 22+). */
    static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    final String mainClass;
    final Class<?> mainClassObject;
    int ranks = 1;
    MpjDevice device = MpjDevice.MULTICORE;
    List<String> args = List.of();
    Duration timeout = Duration.ofMinutes(10);
    List<String> jvmArgs = List.of();
    final Map<String, String> env = new LinkedHashMap<>();
    List<String> classpath;
    Path mpjHome;
    Path machinesFile;
    Integer daemonPort;
    boolean useRunningDaemons;
    Path javaHome;
    Path workingDirectory;
    Launcher launcher;   // null: as the environment says (Launcher.fromEnvironment)
    Integer gpus;        // GPUs a Slurm step asks for; null: one a rank, as many as a node has
    boolean relay;       // a Slurm step's job: every raw line is passed on to this JVM's own output (SlurmStep)
    final List<Consumer<RankLine>> lineListeners = new ArrayList<>();

    /**
     * The ranks' longest wait for a GPU ({@code -Dmpi2nccl.gpu.waitSeconds}), tied to the job's time limit: 15 s
     * under it, at most the 60 s default and at least 5 s, so that a GPU stuck behind a collective is named by the
     * rank that waits for it before the launcher's limit ends the job with no call named. Options in {@link
     * #jvmArgs} come after it and win.
     */
    String gpuWaitOption() {
        long seconds = Math.max(5, Math.min(60, timeout.toSeconds() - 15));
        return "-Dmpi2nccl.gpu.waitSeconds=" + seconds;
    }

    JobBuilder(String mainClass, Class<?> mainClassObject) {
        this.mainClass = Objects.requireNonNull(mainClass, "mainClass");
        this.mainClassObject = mainClassObject;
    }

    /** Number of ranks (processes), at least 1. Default 1. */
    public JobBuilder ranks(int n) {
        this.ranks = n;
        return this;
    }

    /** MULTICORE (threads of one JVM, default) or NIODEV (a JVM per rank; needed for GPU jobs). */
    public JobBuilder device(MpjDevice device) {
        this.device = Objects.requireNonNull(device, "device");
        return this;
    }

    /** The program's arguments: what {@code MPI.Init(args)} returns in every rank. */
    public JobBuilder args(String... args) {
        this.args = List.of(args);
        return this;
    }

    public JobBuilder args(List<String> args) {
        this.args = List.copyOf(args);
        return this;
    }

    /** The whole job is stopped when it runs longer than this. Default 10 minutes. */
    public JobBuilder timeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new MpjLaunchException("timeout must be positive (got " + timeout + "): e.g. Duration.ofSeconds(60)");
        }
        this.timeout = timeout;
        return this;
    }

    /**
     * The stall inspector's delay: a rank that waits this long in one MPI call says where, and the launcher
     * prints one warning for all ({@link StallReports}). Default 10 s; zero turns it off.
     */
    public JobBuilder stall(Duration stall) {
        if (stall.isNegative()) {
            throw new MpjLaunchException("stall delay must not be negative (got " + stall + "): e.g. 10s, or 0 for none");
        }
        env.put(org.mpi2nccl.launch.rank.StallReporter.ENV, Long.toString(stall.toMillis()));
        return this;
    }

    /**
     * Extra options for every rank JVM (e.g. -Xmx2g), after those of earlier calls; {@value #NATIVE_ACCESS} is always
     * added.
     */
    public JobBuilder jvmArgs(String... jvmArgs) {
        List<String> all = new java.util.ArrayList<>(this.jvmArgs);
        all.addAll(List.of(jvmArgs));
        this.jvmArgs = List.copyOf(all);
        return this;
    }

    /**
     * An environment variable for the rank JVMs (and the daemon the launcher starts). Not passed to ranks
     * started by already-running daemons on other hosts.
     */
    public JobBuilder env(String name, String value) {
        env.put(name, value);
        return this;
    }

    /**
     * The ranks' class path (entries separated by {@link File#pathSeparator}). Default: this JVM's
     * {@code java.class.path}. The toolkit's own jar and gson are always added (the rank boot needs them).
     */
    public JobBuilder classpath(String classpath) {
        this.classpath = Arrays.stream(classpath.split(File.pathSeparator)).filter(s -> !s.isBlank()).toList();
        return this;
    }

    public JobBuilder classpath(List<Path> entries) {
        this.classpath = entries.stream().map(Path::toString).toList();
        return this;
    }

    /** The MPJ Express home (default: see {@link MpjHome}). */
    public JobBuilder mpjHome(Path dir) {
        this.mpjHome = dir;
        return this;
    }

    /**
     * niodev: a machines file (one host a line) to spread ranks over several hosts. MPJ deals the ranks out
     * in blocks: with N ranks over H hosts each host gets N/H consecutive ranks (the first N%H hosts one more).
     * Without {@link #runningDaemons(int)} the launcher starts a daemon on this machine only.
     */
    public JobBuilder machinesFile(Path file) {
        this.machinesFile = file;
        return this;
    }

    /** niodev: the port of the daemon the launcher starts (default: a free port). */
    public JobBuilder daemonPort(int port) {
        this.daemonPort = port;
        this.useRunningDaemons = false;
        return this;
    }

    /**
     * niodev on a cluster: use the MPJ daemons already running on every host of the machines file at
     * {@code port}, instead of starting one. A host without a daemon makes the job fail with an
     * {@link MpjLaunchException} that names it.
     */
    public JobBuilder runningDaemons(int port) {
        this.daemonPort = port;
        this.useRunningDaemons = true;
        return this;
    }

    /** The Java installation for the rank JVMs (default: the one running this code). */
    public JobBuilder javaHome(Path dir) {
        this.javaHome = dir;
        return this;
    }

    /** The ranks' working directory (default: this JVM's). */
    public JobBuilder workingDirectory(Path dir) {
        this.workingDirectory = dir;
        return this;
    }

    /**
     * Who starts the processes: {@link Launcher#LOCAL} (this machine) or {@link Launcher#SLURM} (one Slurm job step).
     * Default: what {@code MPI2NCCL_LAUNCHER} says, else Slurm inside a Slurm allocation, else local.
     */
    public JobBuilder launcher(Launcher launcher) {
        this.launcher = Objects.requireNonNull(launcher, "launcher");
        return this;
    }

    /** How many GPUs a Slurm step asks for (default: one a rank, at most what a node has; 0 for none). */
    public JobBuilder gpus(int gpus) {
        if (gpus < 0) throw new MpjLaunchException("--gpus " + gpus + " is negative: give 0 or more (0: no GPU)");
        this.gpus = gpus;
        return this;
    }

    /** The launcher this job uses: a machines file or running daemons mean ranks on given hosts, started here. */
    Launcher launcherToUse() {
        boolean hosts = machinesFile != null || useRunningDaemons;
        if (launcher == Launcher.SLURM && hosts) {
            throw new MpjLaunchException("the Slurm launcher runs a job as one Slurm step on one node, and this job"
                    + " names its hosts (a machines file or running daemons): leave those out, or use --launcher local");
        }
        if (launcher != null) return launcher;
        if (hosts) return Launcher.LOCAL;
        java.util.Map<String, String> seen = new java.util.HashMap<>(System.getenv());
        seen.putAll(env);
        return Launcher.fromEnvironment(seen);
    }

    /** Called for each line as it arrives (on a launcher thread; keep it quick). May be called several times. */
    public JobBuilder onLine(Consumer<RankLine> listener) {
        lineListeners.add(Objects.requireNonNull(listener, "listener"));
        return this;
    }

    /** Starts the job and returns at once. */
    public RunningJob start() {
        return new RunningJob(this).launch();
    }

    /**
     * Runs the job and waits for it.
     *
     * @throws MpjLaunchException the job could not start (the message says why and what to do)
     * @throws RankFailedException a rank threw: the job was stopped within seconds
     * @throws JobTimeoutException the job ran past its timeout
     */
    public JobResult run() {
        return start().awaitResult();
    }

    // --- checks done before anything is started -----------------------------------------------------

    void validate() {
        if (ranks < 1) {
            throw new MpjLaunchException("number of ranks must be at least 1 (got " + ranks + "): use ranks(1) or more (-np 1)");
        }
        if (machinesFile != null && !Files.isReadable(machinesFile)) {
            throw new MpjLaunchException("machines file " + machinesFile + " not found: give a file with one host a line");
        }
        if (machinesFile != null && device != MpjDevice.NIODEV) {
            throw new MpjLaunchException("a machines file needs the niodev device: add device(NIODEV) (--device niodev)");
        }
        if (useRunningDaemons && machinesFile == null) {
            throw new MpjLaunchException("running daemons need a machines file that lists their hosts: add machinesFile(..) (--machines FILE)");
        }
        if (daemonPort != null && (daemonPort < 1 || daemonPort > 65535)) {
            throw new MpjLaunchException("daemon port " + daemonPort + " is not a TCP port: use 1024..65535");
        }
    }

    Path javaBin() {
        Path home = javaHome != null ? javaHome : Path.of(System.getProperty("java.home"));
        Path bin = home.resolve("bin").resolve("java");
        if (!Files.isExecutable(bin)) {
            throw new MpjLaunchException("Java missing: no executable " + bin + ": install a JDK"
                    + " (apt-get install default-jdk-headless) or give javaHome(..) / --java-home");
        }
        return bin;
    }

    /**
     * The ranks' class path: the given one (its {@code DIR/*} entries expanded to the jars in DIR, as the java
     * launcher does), then the toolkit's own runtime, every entry of this JVM's class path: a program given as one
     * folder of classes finds the toolkit and everything it uses (JavaCPP, MPJ's runtime) without listing them.
     */
    List<String> rankClasspath() {
        List<String> own = Arrays.stream(System.getProperty("java.class.path", "").split(File.pathSeparator))
                .filter(s -> !s.isBlank()).toList();
        List<String> cp = new ArrayList<>();
        for (String e : classpath != null ? classpath : own) {
            for (String x : expandWildcard(e)) if (!cp.contains(x)) cp.add(x);
        }
        List<String> runtime = new ArrayList<>(ToolkitClasspath.entries());
        runtime.addAll(own);
        for (String needed : runtime) {
            if (!cp.contains(needed)) cp.add(needed);
        }
        return cp;
    }

    /** {@code DIR/*}: the jars in DIR, sorted; any other entry as it is. */
    static List<String> expandWildcard(String entry) {
        if (!entry.equals("*") && !entry.endsWith(File.separator + "*")) return List.of(entry);
        Path dir = Path.of(entry.substring(0, entry.length() - 1).isEmpty() ? "." : entry.substring(0, entry.length() - 1));
        try (var files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".jar"))
                    .map(Path::toString).sorted().toList();
        } catch (IOException e) {
            throw new MpjLaunchException("class path entry " + entry + ": cannot list " + dir + " (" + e.getMessage()
                    + "): give a folder that exists, e.g. -cp lib/*");
        }
    }

    /** Fails fast with a clear message when the main class is not on the ranks' class path or has no main. */
    void checkMainClass(List<String> cp) {
        if (mainClassObject != null) {
            checkMainMethod(mainClassObject);
        }
        String resource = mainClass.replace('.', '/') + ".class";
        URL[] urls = cp.stream().map(JobBuilder::url).filter(Objects::nonNull).toArray(URL[]::new);
        try (URLClassLoader probe = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
            if (probe.findResource(resource) == null) {
                throw new MpjLaunchException("unknown main class " + mainClass + ": not found on the ranks' class path ("
                        + cp.size() + " entries, first " + cp.stream().limit(3).toList()
                        + "): check the name, or add its directory or jar with classpath(..) / -cp");
            }
            if (mainClassObject == null) {
                try {
                    checkMainMethod(Class.forName(mainClass, false, probe));
                } catch (ClassNotFoundException | LinkageError e) {
                    // present but not loadable here (its dependencies may differ): let the rank report it
                }
            }
        } catch (IOException ignored) {
            // closing the probe loader
        }
    }

    private static void checkMainMethod(Class<?> c) {
        try {
            Method m = c.getMethod("main", String[].class);
            if (Modifier.isStatic(m.getModifiers())) return;
        } catch (NoSuchMethodException e) {
            // fall through
        }
        throw new MpjLaunchException(c.getName() + " has no public static void main(String[]): a rank program is"
                + " an ordinary MPJ program whose main calls MPI.Init(args)");
    }

    private static URL url(String entry) {
        try {
            return Path.of(entry).toUri().toURL();
        } catch (MalformedURLException | RuntimeException e) {
            return null;
        }
    }

    /** A port we may listen on now (another program may take it before MPJ does: the launcher then retries). */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new MpjLaunchException("cannot find a free TCP port: " + e.getMessage() + ": check the network set-up");
        }
    }

    static void checkPortFree(int port) {
        try (ServerSocket s = new ServerSocket(port)) {
            s.setReuseAddress(true);
        } catch (IOException e) {
            throw new MpjLaunchException("port " + port + " is in use (another MPJ daemon or program listens there):"
                    + " pick another daemon port, or leave it out and a free one is chosen");
        }
    }
}
