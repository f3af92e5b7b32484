package org.mpi2nccl.kernel.magic;

import io.github.spencerpark.jupyter.kernel.util.GlobFinder;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * IJava's {@code %jars} and {@code %classpath}: add jars (glob patterns, e.g. {@code %jars lib/*.jar}) or
 * folders of classes to what cells can use, in the kernel and on every rank engine.
 */
public final class ClasspathMagics {
    private final Consumer<List<String>> addToClassPath;
    private final java.util.function.Supplier<List<String>> currentClassPath;

    public ClasspathMagics(Consumer<List<String>> addToClassPath, java.util.function.Supplier<List<String>> current) {
        this.addToClassPath = addToClassPath;
        this.currentClassPath = current;
    }

    /** {@code %jars PATTERN...}: the jar files that match, added; returns their paths. */
    public List<String> jars(List<String> patterns) throws IOException {
        if (patterns.isEmpty()) {
            throw new IllegalArgumentException("%jars needs at least one jar or pattern, e.g. %jars lib/*.jar");
        }
        List<String> jars = new ArrayList<>();
        for (String pattern : patterns) {
            List<String> found = new ArrayList<>();
            for (Path p : new GlobFinder(pattern).computeMatchingFiles()) {
                if (p.toString().endsWith(".jar")) {
                    found.add(p.toAbsolutePath().toString());
                }
            }
            if (found.isEmpty()) {
                throw new IllegalArgumentException("no jar matches '" + pattern + "' (from " + Path.of("").toAbsolutePath()
                        + "): check the path; patterns use * and **, e.g. %jars lib/*.jar");
            }
            jars.addAll(found);
        }
        addToClassPath.accept(jars);
        return jars;
    }

    /** {@code %classpath [ENTRY...]}: adds jars or class folders; without arguments, shows the class path. */
    public List<String> classpath(List<String> entries) throws IOException {
        if (entries.isEmpty()) {
            return currentClassPath.get();
        }
        List<String> added = new ArrayList<>();
        for (String entry : entries) {
            int before = added.size();
            for (Path p : new GlobFinder(entry).computeMatchingPaths()) {
                added.add(p.toAbsolutePath().toString());
            }
            if (added.size() == before) {
                throw new IllegalArgumentException("no file or folder matches '" + entry + "' (from "
                        + Path.of("").toAbsolutePath() + ")");
            }
        }
        addToClassPath.accept(added);
        return added;
    }
}
