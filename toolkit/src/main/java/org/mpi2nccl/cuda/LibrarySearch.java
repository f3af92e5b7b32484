package org.mpi2nccl.cuda;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where the NVIDIA libraries are looked for, in this order:
 * <ol>
 *   <li>the library's own home variable: {@code NCCL_HOME} for NCCL, {@code CUDA_HOME} (or {@code CUDA_PATH})
 *       for the runtime and cuBLAS, each as {@code HOME/lib64}, {@code HOME/lib}, {@code HOME/targets/x86_64-linux/lib};</li>
 *   <li>every folder of {@code LD_LIBRARY_PATH};</li>
 *   <li>Python wheels: {@code site-packages/nvidia/*}{@code /lib} of the virtual environment, conda prefix, every
 *       {@code .../bin} folder on {@code PATH}, {@code /opt/*}{@code /.venv}, the user's and the system's Python;</li>
 *   <li>the usual system folders ({@code /usr/local/cuda/lib64}, {@code /usr/lib/x86_64-linux-gnu}, ...).</li>
 * </ol>
 * The first folder holding the library wins, except for NCCL: several are common on one machine (the system's,
 * PyTorch's wheel, a conda one), so every copy found is read for its version ({@link LibraryVersion}) and the
 * newest is taken, unless {@code NCCL_HOME} holds one (the caller's explicit choice). The result lists the copies
 * passed over, with their versions, for the doctor to show.
 * The environment and the file-system root are parameters, so tests can build a fake tree.
 */
public final class LibrarySearch {
    private static final List<String> SYSTEM_FOLDERS = List.of(
            "/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/cuda/lib",
            "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/x86_64-linux-gnu",
            "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu/nvidia/current", "/usr/lib64", "/lib64",
            "/usr/lib", "/usr/local/lib", "/usr/lib/wsl/lib");

    /** One place that was searched, and why it was on the list. */
    public record Folder(Path path, String reason) {}

    /** A copy of the library, the reason its folder was searched, and its version where it can be read (else null). */
    public record Candidate(Path path, String foundVia, String version) {
        @Override
        public String toString() {
            return path + " (" + (version == null ? "version unknown" : version) + ", " + foundVia + ")";
        }
    }

    /**
     * The outcome for one library: where it is (if anywhere), every folder tried, other versions seen (other
     * sonames), and for NCCL its version and the other copies of the same soname that were passed over.
     */
    public record Result(NativeLibrary library, Optional<Path> path, String foundVia, List<Folder> searched,
                         List<Path> otherVersions, String version, List<Candidate> passedOver) {
        Result(NativeLibrary library, Optional<Path> path, String foundVia, List<Folder> searched, List<Path> otherVersions) {
            this(library, path, foundVia, searched, otherVersions, null, List.of());
        }

        public boolean found() {
            return path.isPresent();
        }

        /** One line for people: where it was found, or what was searched and what to set. */
        public String explain() {
            if (path.isPresent()) {
                String where = path.get() + " (via " + foundVia + (version != null ? ", version " + version : "") + ")";
                if (passedOver.isEmpty()) return where;
                return where + "; picked as " + (foundVia.equals(library.homeVariable) ? "set by " + foundVia : "the newest")
                        + " of " + (passedOver.size() + 1) + " found; also saw " + passedOver;
            }
            StringBuilder s = new StringBuilder(library.soname).append(" not found in ").append(searched.size())
                    .append(" folders (").append(summarize(searched)).append(")");
            if (!otherVersions.isEmpty()) {
                s.append("; found other versions ").append(otherVersions)
                        .append(" but the toolkit's bindings need exactly ").append(library.soname);
            }
            if (library.homeVariable != null) {
                s.append(". Set ").append(library.homeVariable).append(" to its install folder or add its lib folder to LD_LIBRARY_PATH");
            } else {
                s.append(". Install the NVIDIA driver, or add the folder holding libcuda.so.1 to LD_LIBRARY_PATH");
            }
            return s.toString();
        }

        private static String summarize(List<Folder> folders) {
            Map<String, Integer> byReason = new LinkedHashMap<>();
            for (Folder f : folders) byReason.merge(f.reason(), 1, Integer::sum);
            StringBuilder s = new StringBuilder();
            byReason.forEach((reason, n) -> s.append(s.length() == 0 ? "" : ", ").append(reason).append(": ").append(n));
            return s.toString();
        }
    }

    private final Map<String, String> env;
    private final Path root;

    /** Searches this process's environment on the real file system. */
    public static LibrarySearch ofSystem() {
        return new LibrarySearch(System.getenv(), Path.of("/"));
    }

    /** Searches as if {@code env} were the environment and {@code root} the file-system root (for tests). */
    public LibrarySearch(Map<String, String> env, Path root) {
        this.env = Map.copyOf(env);
        this.root = root;
    }

    public Result find(NativeLibrary library) {
        if (library == NativeLibrary.NCCL) return findNewest(library);
        List<Folder> folders = folders(library);
        List<Path> others = new ArrayList<>();
        for (Folder folder : folders) {
            Path candidate = folder.path().resolve(library.soname);
            if (Files.isRegularFile(candidate)) {
                return new Result(library, Optional.of(candidate), folder.reason(), folders, List.of());
            }
            others.addAll(otherVersions(folder.path(), library));
        }
        return new Result(library, Optional.empty(), null, folders, List.copyOf(others));
    }

    /** Every copy in the search folders, by version; NCCL_HOME's copy when there is one, else the newest (ties: search order). */
    private Result findNewest(NativeLibrary library) {
        List<Folder> folders = folders(library);
        List<Candidate> copies = new ArrayList<>();
        List<Path> others = new ArrayList<>();
        java.util.Set<Path> seen = new java.util.HashSet<>();   // one file reached through two folders (/lib -> /usr/lib) counts once
        for (Folder folder : folders) {
            Path candidate = folder.path().resolve(library.soname);
            if (Files.isRegularFile(candidate)) {
                if (seen.add(realPath(candidate))) {
                    copies.add(new Candidate(candidate, folder.reason(), LibraryVersion.ofNccl(candidate).orElse(null)));
                }
            } else {
                others.addAll(otherVersions(folder.path(), library));
            }
        }
        if (copies.isEmpty()) return new Result(library, Optional.empty(), null, folders, List.copyOf(others));
        Candidate pick = copies.get(0);
        if (!pick.foundVia().equals(library.homeVariable)) {
            for (Candidate c : copies) {
                if (LibraryVersion.compare(c.version(), pick.version()) > 0) pick = c;
            }
        }
        List<Candidate> passedOver = new ArrayList<>(copies);
        passedOver.remove(pick);
        return new Result(library, Optional.of(pick.path()), pick.foundVia(), folders, List.of(), pick.version(), List.copyOf(passedOver));
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException | SecurityException e) {
            return p.toAbsolutePath().normalize();
        }
    }

    /** The folders for one library, in search order, without duplicates, only those that exist. */
    public List<Folder> folders(NativeLibrary library) {
        Map<Path, Folder> seen = new LinkedHashMap<>();
        if (library.homeVariable != null) {
            List<String> homes = library == NativeLibrary.NCCL ? List.of("NCCL_HOME") : List.of("CUDA_HOME", "CUDA_PATH");
            for (String var : homes) {
                String home = env.get(var);
                if (home == null || home.isBlank()) continue;
                for (String sub : List.of("lib64", "lib", "targets/x86_64-linux/lib")) {
                    add(seen, real(home).resolve(sub), var);
                }
            }
        }
        for (String dir : split(env.get("LD_LIBRARY_PATH"))) add(seen, real(dir), "LD_LIBRARY_PATH");
        for (Path sitePackages : sitePackages()) {
            for (Path lib : glob(sitePackages.resolve("nvidia"), "*", "lib")) add(seen, lib, "Python site-packages");
        }
        for (String dir : SYSTEM_FOLDERS) add(seen, real(dir), "system folder");
        return List.copyOf(seen.values());
    }

    /** Python site-packages / dist-packages folders that may hold NVIDIA's pip wheels (nvidia/NAME/lib). */
    List<Path> sitePackages() {
        List<Path> prefixes = new ArrayList<>();
        for (String var : List.of("VIRTUAL_ENV", "CONDA_PREFIX")) {
            String v = env.get(var);
            if (v != null && !v.isBlank()) prefixes.add(real(v));
        }
        for (String dir : split(env.get("PATH"))) {
            Path bin = real(dir);
            if (bin.getFileName() != null && bin.getFileName().toString().equals("bin") && bin.getParent() != null) {
                prefixes.add(bin.getParent());
            }
        }
        prefixes.addAll(glob(real("/opt"), "*", ".venv"));
        prefixes.addAll(glob(real("/opt"), "*", "venv"));
        prefixes.add(real("/opt/conda"));
        String home = env.get("HOME");
        if (home != null && !home.isBlank()) prefixes.add(real(home).resolve(".local"));
        prefixes.add(real("/usr/local"));
        prefixes.add(real("/usr"));

        List<Path> out = new ArrayList<>();
        for (Path prefix : prefixes) {
            for (Path python : glob(prefix.resolve("lib"), "python3*", null)) {
                for (String kind : List.of("site-packages", "dist-packages")) {
                    Path p = python.resolve(kind);
                    if (Files.isDirectory(p) && !out.contains(p)) out.add(p);
                }
            }
        }
        Path debian = real("/usr/lib/python3/dist-packages");
        if (Files.isDirectory(debian) && !out.contains(debian)) out.add(debian);
        return out;
    }

    private static List<Path> otherVersions(Path folder, NativeLibrary library) {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder, library.familyPrefix + "*")) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                // versioned files only (libcudart.so.12), not the unversioned dev link or the wanted one
                if (!name.equals(library.soname) && name.length() > library.familyPrefix.length()) out.add(f);
            }
        } catch (IOException | SecurityException e) {
            // unreadable folder: nothing to report from it
        }
        return out;
    }

    /** Sub-folders {@code dir/PATTERN/leaf} (or {@code dir/PATTERN} when leaf is null), sorted, existing only. */
    private static List<Path> glob(Path dir, String pattern, String leaf) {
        if (!Files.isDirectory(dir)) return List.of();
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, pattern)) {
            for (Path e : entries) {
                Path p = leaf == null ? e : e.resolve(leaf);
                if (Files.isDirectory(p)) out.add(p);
            }
        } catch (IOException | SecurityException e) {
            return List.of();
        }
        out.sort(null);
        return out;
    }

    private static void add(Map<Path, Folder> seen, Path dir, String reason) {
        if (Files.isDirectory(dir)) seen.putIfAbsent(dir.normalize(), new Folder(dir.normalize(), reason));
    }

    private static List<String> split(String pathList) {
        if (pathList == null || pathList.isBlank()) return List.of();
        return Stream.of(pathList.split(":")).filter(s -> !s.isBlank()).toList();
    }

    /** An absolute path of the real system, moved under the root (the identity for the real system). */
    private Path real(String absolute) {
        String relative = absolute.startsWith("/") ? absolute.substring(1) : absolute;
        return relative.isEmpty() ? root : root.resolve(relative);
    }

    private Path real(Path absolute) {
        return real(absolute.toString());
    }
}
