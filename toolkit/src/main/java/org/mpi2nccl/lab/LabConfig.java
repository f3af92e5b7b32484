package org.mpi2nccl.lab;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Which GPUs each user of a shared lab server may use for rank engines, as the instructor set it. In order:
 * <ol>
 * <li>the lab file ({@value #FILE_ENV}, else {@value #DEFAULT_FILE}), a properties file with a line per user and
 *     a default: {@code gpus.alice = 0,1}, {@code gpus.bob = 2,3}, {@code gpus.* = 0-3};</li>
 * <li>else {@code CUDA_VISIBLE_DEVICES} of the user's kernel (set in the user's kernelspec or login);</li>
 * <li>else every GPU of the machine.</li>
 * </ol>
 * The lock folder ({@code locks = /var/lock/mpi2nccl} in the file, or {@value #LOCKS_ENV}) is where
 * {@link GpuLease} keeps one lock file per GPU; it defaults to a folder in the system's temporary directory.
 */
public final class LabConfig {
    public static final String FILE_ENV = "MPI2NCCL_LAB_CONFIG";
    public static final String DEFAULT_FILE = "/etc/mpi2nccl/lab.properties";
    public static final String LOCKS_ENV = "MPI2NCCL_GPU_LOCKS";

    private final Properties file;
    private final String source;
    private final Map<String, String> env;

    private LabConfig(Properties file, String source, Map<String, String> env) {
        this.file = file;
        this.source = source;
        this.env = env;
    }

    /** The configuration of this machine and process. */
    public static LabConfig load() {
        return load(System.getenv());
    }

    /** As {@link #load()}, with the environment given (tests). */
    public static LabConfig load(Map<String, String> env) {
        Path path = Path.of(env.getOrDefault(FILE_ENV, DEFAULT_FILE));
        Properties p = new Properties();
        if (Files.isReadable(path)) {
            try (Reader r = Files.newBufferedReader(path)) {
                p.load(r);
            } catch (IOException | IllegalArgumentException e) {
                throw new IllegalStateException("the lab file " + path + " cannot be read: " + e.getMessage());
            }
            return new LabConfig(p, path.toString(), env);
        }
        if (env.containsKey(FILE_ENV)) {
            throw new IllegalStateException(FILE_ENV + " names " + path + ", which cannot be read");
        }
        return new LabConfig(p, null, env);
    }

    /** The user this kernel runs for (the login name). */
    public String user() {
        return System.getProperty("user.name");
    }

    /**
     * The GPUs {@code user} may use, as CUDA names them (indices, or GPU-UUIDs), of {@code machineGpus} on the
     * machine; {@code why} says where the list came from.
     */
    public Grant grantFor(String user, int machineGpus) {
        String listed = file.getProperty("gpus." + user);
        if (listed != null) return new Grant(parse(listed, "gpus." + user), "the lab file " + source + " (gpus." + user + ")");
        if (source != null && file.getProperty("gpus.*") != null) {
            return new Grant(parse(file.getProperty("gpus.*"), "gpus.*"), "the lab file " + source + " (gpus.*)");
        }
        if (source != null) {
            return new Grant(List.of(), "the lab file " + source + ", which grants " + user + " no GPU");
        }
        String visible = env.get("CUDA_VISIBLE_DEVICES");
        if (visible != null && !visible.isBlank()) return new Grant(parse(visible, "CUDA_VISIBLE_DEVICES"), "CUDA_VISIBLE_DEVICES");
        List<String> all = new ArrayList<>();
        for (int i = 0; i < machineGpus; i++) all.add(Integer.toString(i));
        return new Grant(all, "every GPU of the machine (no lab file, no CUDA_VISIBLE_DEVICES)");
    }

    /** Where the lock files go. */
    public Path lockFolder() {
        String dir = env.getOrDefault(LOCKS_ENV, file.getProperty("locks"));
        return dir != null ? Path.of(dir) : Path.of(System.getProperty("java.io.tmpdir"), "mpi2nccl-gpu-locks");
    }

    /** The GPUs a user may use, and where that was set. */
    public record Grant(List<String> gpus, String why) {
    }

    /** "0,1", "0-3", "GPU-8f2c...": a list of GPU names; a range of indices stands for each. */
    static List<String> parse(String text, String where) {
        List<String> gpus = new ArrayList<>();
        for (String part : text.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) continue;
            if (p.matches("\\d+-\\d+")) {
                int a = Integer.parseInt(p.substring(0, p.indexOf('-'))), b = Integer.parseInt(p.substring(p.indexOf('-') + 1));
                if (b < a) throw new IllegalStateException(where + ": the range " + p + " runs backwards");
                for (int i = a; i <= b; i++) gpus.add(Integer.toString(i));
            } else if (p.matches("[A-Za-z0-9_-]+")) {
                gpus.add(p);
            } else {
                throw new IllegalStateException(where + ": '" + p + "' is not a GPU (an index, a range like 0-3, or a GPU UUID)");
            }
        }
        return gpus;
    }
}
