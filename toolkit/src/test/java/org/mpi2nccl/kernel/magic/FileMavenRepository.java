package org.mpi2nccl.kernel.magic;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/** A Maven repository in a folder (file:// URL), holding artifacts built on the spot: no network in the tests. */
final class FileMavenRepository {
    final Path root;

    FileMavenRepository(Path root) {
        this.root = root;
    }

    String url() {
        return root.toUri().toString();
    }

    /**
     * Deploys group:artifact:version: a jar with one class {@code className} (its Java source given) and a POM with
     * the dependencies given as XML.
     */
    void deploy(String group, String artifact, String version, String className, String source,
                String dependenciesXml, Path... classPath) throws IOException {
        Path dir = root.resolve(group.replace('.', '/')).resolve(artifact).resolve(version);
        Files.createDirectories(dir);
        // beside the repository, in the test's own temporary folder (JUnit deletes it), not in the shared /tmp
        Path src = Files.createTempDirectory(root.toAbsolutePath().getParent(), "src");
        Path classes = Files.createTempDirectory(root.toAbsolutePath().getParent(), "classes");
        Path file = src.resolve(className.replace('.', '/') + ".java");
        Files.createDirectories(file.getParent());
        Files.writeString(file, source);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        String cp = String.join(java.io.File.pathSeparator, Stream.of(classPath).map(Path::toString).toArray(String[]::new));
        int rc = javac.run(null, null, null, "-d", classes.toString(), "-cp", cp.isEmpty() ? "." : cp, file.toString());
        if (rc != 0) {
            throw new IllegalStateException("javac failed on " + file);
        }
        try (OutputStream out = Files.newOutputStream(dir.resolve(artifact + "-" + version + ".jar"));
             JarOutputStream jar = new JarOutputStream(out);
             Stream<Path> files = Files.walk(classes)) {
            for (Path c : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                jar.putNextEntry(new JarEntry(classes.relativize(c).toString().replace('\\', '/')));
                jar.write(Files.readAllBytes(c));
                jar.closeEntry();
            }
        }
        Files.writeString(dir.resolve(artifact + "-" + version + ".pom"),
                "<project><modelVersion>4.0.0</modelVersion><groupId>" + group + "</groupId><artifactId>" + artifact
                        + "</artifactId><version>" + version + "</version><dependencies>" + dependenciesXml
                        + "</dependencies></project>\n", StandardCharsets.UTF_8);
    }

    Path jar(String group, String artifact, String version) {
        return root.resolve(group.replace('.', '/')).resolve(artifact).resolve(version)
                .resolve(artifact + "-" + version + ".jar");
    }
}
