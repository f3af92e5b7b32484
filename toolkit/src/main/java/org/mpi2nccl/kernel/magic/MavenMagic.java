package org.mpi2nccl.kernel.magic;

import io.github.spencerpark.jupyter.kernel.magic.registry.MagicArgsParseException;
import io.github.spencerpark.jupyter.kernel.magic.registry.MagicsArgs;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.graph.Dependency;
import org.eclipse.aether.util.artifact.JavaScopes;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * IJava's {@code %maven group:artifact:version ...}: the jars and everything they need, from the local Maven
 * repository or downloaded into it, added to what cells can use (in the kernel and on every rank engine, those
 * started later included). {@code --repo URL} adds a repository for this and every later call; {@code --offline}
 * ({@code -o}) uses the local repository alone.
 */
public final class MavenMagic {
    static final String USAGE = "%maven [--repo URL] [--offline] group:artifact:version ...,"
            + " e.g. %maven org.apache.commons:commons-lang3:3.17.0";
    private static final MagicsArgs ARGS = MagicsArgs.builder()
            .varargs("coordinates")
            .keyword("repo")
            .flag("offline", 'o', "true")
            .onlyKnownKeywords().onlyKnownFlags()
            .build();

    /** What a {@code %maven} line asks for. */
    public record Request(List<String> coordinates, List<String> repositories, boolean offline) {
    }

    private final Supplier<MavenResolver> resolver;
    private final Consumer<List<String>> addToClassPath;

    public MavenMagic(Supplier<MavenResolver> resolver, Consumer<List<String>> addToClassPath) {
        this.resolver = resolver;
        this.addToClassPath = addToClassPath;
    }

    /** The magic's arguments read; a mistake is a one-line error with the usage. */
    public static Request parse(List<String> args) {
        List<String> rest = new ArrayList<>();
        boolean offline = false;
        for (String a : args) {
            // basekernel's parser reads "--name" as a keyword that takes the next word as its value
            if (a.equals("--offline")) {
                offline = true;
            } else {
                rest.add(a);
            }
        }
        Map<String, List<String>> parsed;
        try {
            parsed = ARGS.parse(rest);
        } catch (MagicArgsParseException e) {
            throw new IllegalArgumentException("%maven: " + e.getMessage() + " Usage: " + USAGE);
        }
        offline |= !parsed.get("offline").isEmpty();
        if (parsed.get("coordinates").isEmpty()) {
            throw new IllegalArgumentException("%maven needs at least one coordinate: " + USAGE);
        }
        return new Request(List.copyOf(parsed.get("coordinates")), List.copyOf(parsed.get("repo")), offline);
    }

    /** A coordinate as Maven reads it (group:artifact[:extension[:classifier]]:version), with a one-line error. */
    public static Dependency dependency(String coordinate) {
        try {
            return new Dependency(new DefaultArtifact(coordinate), JavaScopes.COMPILE);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("%maven: '" + coordinate + "' is not a Maven coordinate: write"
                    + " group:artifact:version, e.g. org.apache.commons:commons-lang3:3.17.0");
        }
    }

    /** {@code %maven ...}: resolves, adds the jars, and says what it added on {@code out}. */
    public List<Path> line(List<String> args, PrintStream out) {
        Request request = parse(args);
        List<Dependency> dependencies = new ArrayList<>();
        for (String c : request.coordinates()) {
            dependencies.add(dependency(c));
        }
        request.repositories().forEach(resolver.get()::addRepository);
        List<Path> jars = resolver.get().resolve(dependencies, request.offline(), "%maven");
        add(jars, request.coordinates().size(), out, addToClassPath);
        return jars;
    }

    /** Adds the jars to the class path and prints one line: how many, and their file names. */
    static void add(List<Path> jars, int requested, PrintStream out, Consumer<List<String>> addToClassPath) {
        List<String> paths = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Path j : jars) {
            paths.add(j.toAbsolutePath().toString());
            names.add(j.getFileName().toString());
        }
        addToClassPath.accept(paths);
        int extra = Math.max(0, jars.size() - requested);
        out.println("added " + jars.size() + (jars.size() == 1 ? " jar" : " jars")
                + (extra > 0 ? " (" + extra + " needed by the requested)" : "") + ": " + String.join(", ", names));
    }
}
