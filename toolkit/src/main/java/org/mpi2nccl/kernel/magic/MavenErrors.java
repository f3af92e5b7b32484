package org.mpi2nccl.kernel.magic;

import org.eclipse.aether.artifact.Artifact;
import org.eclipse.aether.collection.DependencyCollectionException;
import org.eclipse.aether.graph.DependencyNode;
import org.eclipse.aether.repository.RemoteRepository;
import org.eclipse.aether.resolution.ArtifactDescriptorException;
import org.eclipse.aether.resolution.ArtifactResolutionException;
import org.eclipse.aether.resolution.ArtifactResult;
import org.eclipse.aether.resolution.DependencyResolutionException;
import org.eclipse.aether.resolution.VersionRangeResolutionException;
import org.eclipse.aether.transfer.ArtifactNotFoundException;
import org.eclipse.aether.transfer.RepositoryOfflineException;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Maven Resolver's failures as one line for the student: which coordinate (and which requested one needed it), and
 * what to do (check the coordinate, add a repository, go online). Resolver's own messages list every repository and
 * cause on many lines.
 */
final class MavenErrors {
    private MavenErrors() {
    }

    static String explain(String magic, DependencyResolutionException e, boolean offline, Path local,
                          List<RemoteRepository> repositories) {
        Failure f = failure(e);
        if (f == null) {
            return magic + ": could not resolve the dependencies: " + firstLine(e);
        }
        String what = coordinate(f.artifact) + neededBy(e.getResult().getRoot(), f.artifact);
        if (f.descriptor) {
            return magic + ": the POM of " + what + " could not be read (" + firstLine(f.cause)
                    + "): check the coordinate, or the cell's XML";
        }
        if (offline || has(f.cause, RepositoryOfflineException.class)) {
            return magic + ": " + what + " is not in the local repository " + local + " and the kernel is offline"
                    + " (--offline or settings.xml): run it once online, or fetch it with"
                    + " mvn dependency:get -Dartifact=" + coordinate(f.artifact);
        }
        if (f.cause == null || has(f.cause, ArtifactNotFoundException.class)) {
            String searched = repositories.stream().map(r -> r.getId() + " (" + r.getUrl() + ")")
                    .collect(Collectors.joining(", "));
            String addRepo = magic.equals("%maven") ? "%maven --repo URL " + coordinate(f.artifact)
                    : "a <repositories> block in the cell";
            return magic + ": " + what + " was found in none of " + searched + ": check the group, artifact and"
                    + " version (https://central.sonatype.com), or add the repository that has it with " + addRepo;
        }
        return magic + ": could not download " + what + " (" + firstLine(rootCause(f.cause)) + "): check the network"
                + " or a proxy in ~/.m2/settings.xml, or use --offline with jars already in " + local;
    }

    /** The failed artifact, its cause, and whether its POM (not its jar) failed. */
    private static final class Failure {
        final Artifact artifact;
        final Throwable cause;
        final boolean descriptor;

        Failure(Artifact artifact, Throwable cause, boolean descriptor) {
            this.artifact = artifact;
            this.cause = cause;
            this.descriptor = descriptor;
        }
    }

    private static Failure failure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ArtifactResolutionException) {
                for (ArtifactResult r : ((ArtifactResolutionException) t).getResults()) {
                    if (!r.isResolved()) {
                        Throwable cause = r.getExceptions().isEmpty() ? null : r.getExceptions().get(0);
                        return new Failure(r.getRequest().getArtifact(), cause, false);
                    }
                }
            }
            if (t instanceof DependencyCollectionException) {
                for (Exception x : ((DependencyCollectionException) t).getResult().getExceptions()) {
                    if (x instanceof ArtifactDescriptorException) {
                        ArtifactDescriptorException d = (ArtifactDescriptorException) x;
                        boolean missing = has(d, ArtifactNotFoundException.class) || has(d, RepositoryOfflineException.class);
                        return new Failure(d.getResult().getArtifact(), d.getCause(), !missing);
                    }
                    if (x instanceof VersionRangeResolutionException) {
                        VersionRangeResolutionException v = (VersionRangeResolutionException) x;
                        return new Failure(v.getResult().getRequest().getArtifact(), v, false);
                    }
                }
            }
        }
        return null;
    }

    /** " (needed by g:a:v)" when the artifact came in through a requested one, else "". */
    private static String neededBy(DependencyNode root, Artifact artifact) {
        if (root == null) {
            return "";
        }
        for (DependencyNode top : root.getChildren()) {
            if (top.getArtifact() != null && !same(top.getArtifact(), artifact) && contains(top, artifact)) {
                return " (needed by " + coordinate(top.getArtifact()) + ")";
            }
        }
        return "";
    }

    private static boolean contains(DependencyNode node, Artifact artifact) {
        for (DependencyNode c : node.getChildren()) {
            if ((c.getArtifact() != null && same(c.getArtifact(), artifact)) || contains(c, artifact)) {
                return true;
            }
        }
        return false;
    }

    private static boolean same(Artifact a, Artifact b) {
        return a.getGroupId().equals(b.getGroupId()) && a.getArtifactId().equals(b.getArtifactId())
                && a.getVersion().equals(b.getVersion());
    }

    static String coordinate(Artifact a) {
        String ext = a.getExtension().equals("jar") && a.getClassifier().isEmpty() ? ""
                : ":" + a.getExtension() + (a.getClassifier().isEmpty() ? "" : ":" + a.getClassifier());
        return a.getGroupId() + ":" + a.getArtifactId() + ext + ":" + a.getVersion();
    }

    private static boolean has(Throwable t, Class<? extends Throwable> type) {
        for (; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static Throwable rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    static String firstLine(Throwable t) {
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        return m.strip().split("\n")[0];
    }
}
