package org.mpi2nccl.launch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where this machine's bubblewrap ({@code bwrap}, Debian's package) is: the tool that builds the namespaces of a
 * job's private network ({@link PrivateNetwork}) and of a graded submission's sandbox.
 */
public final class Bubblewrap {
    /** Where bubblewrap is looked for, in order ({@code MPI2NCCL_BWRAP} names another). */
    private static final List<String> PLACES = List.of("/usr/bin/bwrap", "/bin/bwrap");

    private Bubblewrap() {
    }

    /** bubblewrap's path, or empty when this machine has none. */
    public static Optional<Path> path() {
        String named = System.getenv("MPI2NCCL_BWRAP");
        if (named != null && !named.isBlank()) return Optional.of(Path.of(named)).filter(Files::isExecutable);
        return PLACES.stream().map(Path::of).filter(Files::isExecutable).findFirst();
    }

    /** What to do when it is missing. */
    public static final String INSTALL = "apt-get install bubblewrap (as root), or ./build.sh setup";
}
