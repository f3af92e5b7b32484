package org.mpi2nccl.launch;

import org.mpi2nccl.launch.rank.JobHome;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.mpi2nccl.files.PrivateTemp;

/**
 * The MPJ Express installation the launcher uses: {@code build/mpj-home}, assembled by {@code ./build.sh setup}
 * from Debian's libmpj-java (lib/ with MPJ's jars and the jars their manifests name, conf/mpjexpress.conf).
 *
 * <p>Found, in this order: the builder's {@code mpjHome(..)}, the system property {@code mpi2nccl.mpj.home},
 * the environment variable {@code MPJ_HOME}, then {@code build/mpj-home} in the working directory or one
 * of its parents, then beside the toolkit's own jar or classes.
 */
public final class MpjHome {
    /** Files every job needs; a home without them was not assembled by build.sh. */
    static final List<String> REQUIRED = List.of("lib/starter.jar", "lib/daemon.jar", "lib/mpi.jar",
            "lib/mpjdev.jar", "lib/smpdev.jar", "lib/xdev.jar", "lib/mpjbuf.jar", "lib/mpiExp.jar",
            "lib/niodev.jar", "lib/loader1.jar", "lib/mpj.jar", "lib/log4j-1.2.jar", "conf/mpjexpress.conf");

    private final Path dir;

    private MpjHome(Path dir) {
        this.dir = dir;
    }

    public Path dir() {
        return dir;
    }

    public Path lib(String jar) {
        return dir.resolve("lib").resolve(jar);
    }

    public Path conf() {
        return dir.resolve("conf").resolve("mpjexpress.conf");
    }

    /** Finds and checks MPJ_HOME; {@code explicit} may be null. */
    public static MpjHome locate(Path explicit) {
        List<Path> tried = new ArrayList<>();
        for (Path candidate : candidates(explicit)) {
            tried.add(candidate);
            if (Files.isDirectory(candidate)) return check(candidate.toAbsolutePath().normalize());
        }
        throw new MpjLaunchException("MPJ_HOME not built: no MPJ Express home found (looked at " + tried
                + "): run ./build.sh setup, or set MPJ_HOME to an assembled MPJ Express home");
    }

    /** An MPJ home at {@code dir}, checked. */
    public static MpjHome at(Path dir) {
        return check(dir.toAbsolutePath().normalize());
    }

    private static MpjHome check(Path dir) {
        for (String f : REQUIRED) {
            if (!Files.isRegularFile(dir.resolve(f))) {
                throw new MpjLaunchException("MPJ_HOME not built: " + dir.resolve(f) + " is missing"
                        + " (Debian's /usr/share/mpj lacks the jars MPJ's manifests name): run ./build.sh setup,"
                        + " or set MPJ_HOME to the build/mpj-home it assembles");
            }
        }
        return new MpjHome(dir);
    }

    private static List<Path> candidates(Path explicit) {
        List<Path> out = new ArrayList<>();
        if (explicit != null) {
            out.add(explicit);
            return out;
        }
        Optional.ofNullable(System.getProperty("mpi2nccl.mpj.home")).map(Path::of).ifPresent(out::add);
        Optional.ofNullable(System.getenv("MPJ_HOME")).filter(s -> !s.isBlank()).map(Path::of).ifPresent(out::add);
        if (!out.isEmpty()) return out;
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            out.add(p.resolve("build").resolve("mpj-home"));
        }
        codeLocation().ifPresent(code -> {
            for (Path p = code.getParent(); p != null; p = p.getParent()) {
                Path c = p.resolve("build").resolve("mpj-home");
                if (!out.contains(c)) out.add(c);
            }
        });
        return out;
    }

    /** The toolkit's jar (or classes directory). */
    static Optional<Path> codeLocation() {
        try {
            var src = MpjHome.class.getProtectionDomain().getCodeSource();
            return src == null ? Optional.empty() : Optional.of(Path.of(src.getLocation().toURI()));
        } catch (URISyntaxException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * A private MPJ home for one job: lib/ links to this home's jars, conf/ holds a copy of the configuration
     * with the job's own ports, so that two jobs (or two test classes) on one machine never share a port.
     * MPJ's starter and daemon read their ports from {@code $MPJ_HOME/conf/mpjexpress.conf}.
     */
    Path createJobHome(int daemonPort, int portManagerPort, int starterPort) {
        // In the user's private folder, not the shared temporary one, and named after this process
        // (mpj-job-PID-START-RANDOM): if every process of the job is killed, a later start of the user removes it.
        return fill(PrivateTemp.newFolder(PrivateTemp.folder(), "mpj-job"), daemonPort, portManagerPort, starterPort);
    }

    /** The same, in {@code parent}. */
    public Path createJobHome(Path parent, int daemonPort, int portManagerPort, int starterPort) {
        try {
            return fill(Files.createTempDirectory(parent, org.mpi2nccl.launch.rank.JobHome.PREFIX),
                    daemonPort, portManagerPort, starterPort);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a job directory for MPJ in " + parent + " (" + e + ")"
                    + PrivateTemp.spaceHint(parent), e);
        }
    }

    private Path fill(Path job, int daemonPort, int portManagerPort, int starterPort) {
        try {
            Files.createSymbolicLink(job.resolve("lib"), dir.resolve("lib"));
            Files.createDirectories(job.resolve("conf"));
            List<String> conf = new ArrayList<>(Files.readAllLines(conf()));
            set(conf, "mpjexpress.mpjdaemon.port.1", daemonPort);
            set(conf, "mpjexpress.mpjdaemon.port.2", portManagerPort);
            set(conf, "mpjexpress.mpjrun.port.1", starterPort);
            Files.write(job.resolve("conf").resolve("mpjexpress.conf"), conf);
            return job;
        } catch (IOException e) {
            PrivateTemp.deleteTree(job);   // not half a job folder: the message says why there is none
            throw new UncheckedIOException("cannot create a job directory for MPJ in " + job + " (" + e + ")"
                    + PrivateTemp.spaceHint(job), e);
        }
    }

    private static void set(List<String> conf, String key, int value) {
        conf.removeIf(l -> l.trim().startsWith(key + "="));
        conf.add(key + "=" + value);
    }

    @Override
    public String toString() {
        return dir.toString();
    }
}
