package org.mpi2nccl.files;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The current user's private folder in a shared place: {@code <java.io.tmpdir>/mpi2nccl-<user>}, and the same under
 * /dev/shm for shared memory.
 * <p>Why: on a lab server every other Unix user may be an attacker. A file with a fixed name in /tmp belongs to
 * whoever made it first, and a readable shared-memory file can be mapped by anyone. So everything the toolkit puts
 * in a shared place goes in a folder that only its user can enter (0700), checked on every use: owned by this
 * user, a real folder (not a symbolic link to somebody else's), and 0700. Anything else is refused, never repaired:
 * a folder somebody else made may already hold their files.
 * <p>Inside it, {@link #newFolder} makes folders named after the creating process (pid and start time) that are
 * removed when the process ends normally, and that a later process of the same user removes once the creator is
 * gone (after kill -9). The start time tells a dead creator from a new process that was given the same pid.
 */
public final class PrivateTemp {
    public static final Set<PosixFilePermission> FOLDER_MODE = PosixFilePermissions.fromString("rwx------");
    public static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");
    private static final Path SHM = Path.of("/dev/shm");
    /** {@code <purpose>-<pid>-<start millis>-<random>}: what {@link #newFolder} makes. */
    private static final Pattern OWNED = Pattern.compile("[A-Za-z0-9-]+-(\\d+)-(\\d+)-[0-9a-f]{8}");
    private static final String PURPOSE = "[A-Za-z0-9]+(-[A-Za-z0-9]+)*";
    private static final Set<Path> TO_REMOVE = ConcurrentHashMap.newKeySet();
    private static final Set<Path> SWEPT = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> TO_REMOVE.forEach(PrivateTemp::deleteTree),
                "mpi2nccl-private-temp-cleanup"));
    }

    private PrivateTemp() {}

    /** Permissions to pass when creating a folder, so that it is private from its first moment (no chmod window). */
    public static FileAttribute<Set<PosixFilePermission>> folderMode() {
        return PosixFilePermissions.asFileAttribute(FOLDER_MODE);
    }

    /** Permissions to pass when creating a file. */
    public static FileAttribute<Set<PosixFilePermission>> fileMode() {
        return PosixFilePermissions.asFileAttribute(FILE_MODE);
    }

    /**
     * {@code <java.io.tmpdir>/mpi2nccl-<user>}, created and checked; java.io.tmpdir itself when it already is this
     * user's folder (the JVMs the toolkit starts get it as their temp folder: {@link #jvmOption()}).
     */
    public static Path folder() {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        if (tmp.getFileName() != null && tmp.getParent() != null
                && tmp.getFileName().toString().equals("mpi2nccl-" + userName())) {
            return in(tmp.getParent());   // made if missing (the JVM does not make its temp folder), then checked
        }
        return in(tmp);
    }

    /**
     * The option that makes a JVM's temporary files go to the user's folder: what libraries unpack there by
     * themselves (netlib's native BLAS, one copy per JVM) is then out of other users' sight, not in the shared /tmp.
     */
    public static String jvmOption() {
        return "-Djava.io.tmpdir=" + folder();
    }

    /** {@code /dev/shm/mpi2nccl-<user>} where /dev/shm is usable (memory), else {@link #folder()}. */
    public static Path shmFolder() {
        return Files.isDirectory(SHM) && Files.isWritable(SHM) ? in(SHM) : folder();
    }

    /** Where {@link #in} puts the user's folder in {@code shared}, without making or checking it. */
    public static Path locationIn(Path shared) {
        return shared.toAbsolutePath().resolve("mpi2nccl-" + userName());
    }

    /** {@code shared/mpi2nccl-<user>}: created 0700 if missing, then checked. */
    public static Path in(Path shared) {
        Path dir = locationIn(shared);
        try {
            Files.createDirectory(dir, folderMode());
        } catch (FileAlreadyExistsException e) {
            // made earlier (by us, we hope): the check below decides
        } catch (IOException e) {
            throw new PrivateTempException(dir + " could not be created (" + e + "); set -Djava.io.tmpdir (or TMPDIR"
                    + " for the scripts) to a folder of your own");
        }
        verify(dir);
        return dir;
    }

    /** Refuses {@code dir} unless it is a real folder, owned by this process's user, with permissions 0700. */
    public static void verify(Path dir) {
        PosixFileAttributes a;
        int uid;
        try {
            a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            uid = (Integer) Files.getAttribute(dir, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new PrivateTempException(dir + " cannot be checked (" + e + "); set -Djava.io.tmpdir (or TMPDIR)"
                    + " to a folder of your own");
        }
        String wrong = a.isSymbolicLink() ? "a symbolic link, not a folder"
                : !a.isDirectory() ? "not a folder"
                : uid != myUid() ? "owned by uid " + uid + ", not you (uid " + myUid() + ")"
                : !a.permissions().equals(FOLDER_MODE) ? "open to others (" + PosixFilePermissions.toString(a.permissions())
                        + ", not rwx------)"
                : null;
        if (wrong != null) {
            throw new PrivateTempException(dir + " is " + wrong + ": somebody else may read or replace what the"
                    + " toolkit puts there, so it is not used. Remove it if it is yours and safe to remove, or set"
                    + " -Djava.io.tmpdir (or TMPDIR for the scripts) to a folder of your own.");
        }
    }

    /**
     * Refuses a file that another user could have written: a symbolic link, owned by another uid, or writable by
     * group or others. For files at a place the user chose (a shared file system), where no private folder helps.
     */
    public static void requireMine(Path file, String whatToDo) {
        try {
            PosixFileAttributes a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            int uid = (Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            Set<PosixFilePermission> p = a.permissions();
            String wrong = a.isSymbolicLink() ? "a symbolic link"
                    : uid != myUid() ? "owned by uid " + uid + ", not you (uid " + myUid() + ")"
                    : p.contains(PosixFilePermission.GROUP_WRITE) || p.contains(PosixFilePermission.OTHERS_WRITE)
                            ? "writable by others (" + PosixFilePermissions.toString(p) + ")"
                    : null;
            if (wrong != null) throw new PrivateTempException(file + " is " + wrong + ", so it is not trusted: " + whatToDo);
        } catch (IOException e) {
            throw new PrivateTempException(file + " cannot be checked (" + e + "): " + whatToDo);
        }
    }

    /**
     * A new folder {@code base/<purpose>-<pid>-<start>-<random>} (0700), removed when this process ends normally.
     * First removes such folders in {@code base} whose process is gone.
     */
    public static Path newFolder(Path base, String purpose) {
        if (!purpose.matches(PURPOSE)) throw new IllegalArgumentException("purpose: letters, digits and '-', got " + purpose);
        verify(base);
        if (SWEPT.add(base)) removeLeftovers(base);
        ProcessHandle me = ProcessHandle.current();
        String random = UUID.randomUUID().toString().substring(0, 8);
        Path dir = base.resolve(purpose + "-" + me.pid() + "-" + startMillis(me) + "-" + random);
        try {
            Files.createDirectory(dir, folderMode());
        } catch (IOException e) {
            throw new PrivateTempException("could not create " + dir + " (" + e + ")" + spaceHint(base));
        }
        TO_REMOVE.add(dir);
        return dir;
    }

    /**
     * ": the file system of {@code place} has N MiB free: free space there, or set TMPDIR to a folder with room" when
     * that file system is (nearly) full, else "": the second half of a message about a write that failed.
     */
    public static String spaceHint(Path place) {
        try {
            Path p = place.toAbsolutePath();
            while (p != null && !Files.exists(p)) p = p.getParent();
            if (p == null) return "";
            long free = Files.getFileStore(p).getUsableSpace();
            if (free >= 64L << 20) return "";
            return String.format(java.util.Locale.ROOT, ": the file system of %s has %.1f MiB free: free space there, or set"
                    + " TMPDIR to a folder with room", p, free / 1048576.0);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** Removes a folder made by {@link #newFolder} now, rather than at exit. */
    public static void remove(Path dir) {
        deleteTree(dir);
        TO_REMOVE.remove(dir);
    }

    /** Removes the folders in {@code base} made by processes that no longer run; returns how many. */
    public static int removeLeftovers(Path base) {
        int removed = 0;
        try (Stream<Path> s = Files.list(base)) {
            for (Path p : s.toList()) {
                Matcher m = OWNED.matcher(p.getFileName().toString());
                if (m.matches() && !alive(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)))) {
                    deleteTree(p);
                    removed++;
                }
            }
        } catch (IOException e) {
            // leftovers stay until a later start; nothing depends on their removal
        }
        return removed;
    }

    /** Whether process {@code pid} runs and is the one that started at {@code start} (pids are reused). */
    static boolean alive(long pid, long start) {
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        // a killed process its parent has not collected yet (a zombie) is alive to Java, but uses nothing of its own
        return p.isPresent() && p.get().isAlive() && !ProcStat.ended(pid) && (start == 0 || startMillis(p.get()) == start);
    }

    private static long startMillis(ProcessHandle p) {
        return p.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
    }

    /** This process's uid: the owner of /proc/self (Linux), which is the effective uid. */
    static int myUid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException e) {
            throw new PrivateTempException("cannot tell this process's uid from /proc/self (" + e + "): the toolkit"
                    + " needs Linux with /proc mounted");
        }
    }

    /** The user name, kept to characters that are safe in a file name. */
    static String userName() {
        String name = System.getProperty("user.name", "").replaceAll("[^A-Za-z0-9._-]", "_");
        return name.isEmpty() || name.startsWith(".") ? "uid" + myUid() : name;
    }

    /**
     * Deletes {@code dir} and everything in it. Links are not followed: a link found inside is deleted, not what it
     * points to (a folder a hostile run wrote into may hold links to the user's own files). What cannot be deleted
     * stays for a later start.
     */
    public static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // a file still open elsewhere, or a folder another process of ours refilled: the rest still goes
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // gone already, or removed by another process of ours at the same time
        }
    }
}
