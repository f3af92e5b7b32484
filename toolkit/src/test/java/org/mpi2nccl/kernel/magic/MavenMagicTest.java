package org.mpi2nccl.kernel.magic;

import org.apache.maven.settings.Settings;
import org.eclipse.aether.graph.Dependency;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * %maven and %%loadFromPOM against a file:// repository built in a temporary folder (demo:greet:1.0 needs
 * demo:base:1.0; demo:broken:1.0 needs a demo:gone:1.0 that is not there), with an empty local repository. Maven
 * Central is not among the repositories: nothing here uses the network.
 */
class MavenMagicTest {
    @TempDir
    Path tmp;
    FileMavenRepository remote;
    Path local;

    @BeforeEach
    void repository() throws Exception {
        remote = new FileMavenRepository(tmp.resolve("remote"));
        remote.deploy("demo", "base", "1.0", "demo.base.Base",
                "package demo.base; public class Base { public static String word() { return \"base\"; } }", "");
        remote.deploy("demo", "greet", "1.0", "demo.greet.Greet",
                "package demo.greet; public class Greet { public static String hi() { return \"hi from \" + demo.base.Base.word(); } }",
                "<dependency><groupId>demo</groupId><artifactId>base</artifactId><version>1.0</version></dependency>",
                remote.jar("demo", "base", "1.0"));
        remote.deploy("demo", "broken", "1.0", "demo.broken.Broken", "package demo.broken; public class Broken {}",
                "<dependency><groupId>demo</groupId><artifactId>gone</artifactId><version>1.0</version></dependency>");
        local = tmp.resolve("local");
    }

    private MavenResolver resolver() {
        MavenResolver r = new MavenResolver(local, new Settings(), List.of());
        r.addRepository(remote.url());
        return r;
    }

    private static List<String> names(List<Path> jars) {
        List<String> names = new ArrayList<>();
        jars.forEach(j -> names.add(j.getFileName().toString()));
        return names;
    }

    @Test
    void parsesCoordinatesRepositoriesAndOffline() {
        MavenMagic.Request r = MavenMagic.parse(List.of("a:b:1", "--repo", "file:///r", "c:d:jar:linux:2", "--offline"));
        assertEquals(List.of("a:b:1", "c:d:jar:linux:2"), r.coordinates());
        assertEquals(List.of("file:///r"), r.repositories());
        assertTrue(r.offline());
        assertTrue(MavenMagic.parse(List.of("-o", "--repo=https://x.org/m2", "a:b:1")).offline());
        assertFalse(MavenMagic.parse(List.of("a:b:1")).offline());
    }

    @Test
    void badArgumentsAreOneLineWithTheUsage() {
        String none = assertThrows(IllegalArgumentException.class, () -> MavenMagic.parse(List.of())).getMessage();
        assertTrue(none.contains("%maven needs at least one coordinate") && none.contains("group:artifact:version"), none);
        String unknown = assertThrows(IllegalArgumentException.class,
                () -> MavenMagic.parse(List.of("--mirror", "x", "a:b:1"))).getMessage();
        assertTrue(unknown.contains("mirror") && unknown.contains("Usage: %maven"), unknown);
        String bad = assertThrows(IllegalArgumentException.class, () -> MavenMagic.dependency("commons-lang3")).getMessage();
        assertTrue(bad.contains("'commons-lang3' is not a Maven coordinate"), bad);
        String url = assertThrows(IllegalArgumentException.class, () -> resolver().addRepository("repo.example.org"))
                .getMessage();
        assertTrue(url.contains("'repo.example.org' is not a repository URL"), url);
        for (String m : List.of(none, unknown, bad, url)) {
            assertFalse(m.contains("\n"), m);
        }
    }

    @Test
    void resolvesTheJarAndWhatItNeedsIntoTheLocalRepositoryAndTheClassRuns() throws Exception {
        List<String> added = new ArrayList<>();
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        MavenMagic magic = new MavenMagic(() -> resolver(), added::addAll);
        List<Path> jars = magic.line(List.of("demo:greet:1.0"), new PrintStream(said, true, StandardCharsets.UTF_8));
        assertEquals(List.of("greet-1.0.jar", "base-1.0.jar"), names(jars));
        for (Path j : jars) {
            assertTrue(j.startsWith(local), j + " is in the local repository " + local);
        }
        assertEquals(2, added.size());
        assertTrue(said.toString(StandardCharsets.UTF_8).startsWith("added 2 jars (1 needed by the requested): greet-1.0.jar"),
                said.toString(StandardCharsets.UTF_8));
        try (URLClassLoader loader = new URLClassLoader(new URL[]{jars.get(0).toUri().toURL(), jars.get(1).toUri().toURL()})) {
            assertEquals("hi from base", loader.loadClass("demo.greet.Greet").getMethod("hi").invoke(null));
        }
    }

    @Test
    void offlineUsesTheLocalRepositoryAloneAndSaysWhatToDoWhenItIsEmpty() {
        List<Dependency> greet = List.of(MavenMagic.dependency("demo:greet:1.0"));
        String empty = assertThrows(IllegalArgumentException.class, () -> resolver().resolve(greet, true, "%maven"))
                .getMessage();
        assertTrue(empty.startsWith("%maven: demo:greet:1.0 is not in the local repository " + local
                + " and the kernel is offline"), empty);
        assertTrue(empty.contains("run it once online"), empty);
        assertFalse(Files.exists(local.resolve("demo/greet/1.0/greet-1.0.jar")));

        resolver().resolve(greet, false, "%maven");
        // a fresh kernel, offline, without the repository they came from: the local copies serve
        MavenResolver noRemote = new MavenResolver(local, new Settings(), List.of());
        assertEquals(List.of("greet-1.0.jar", "base-1.0.jar"), names(noRemote.resolve(greet, true, "%maven")));
    }

    @Test
    void settingsOfflineCountsAsOffline() {
        Settings settings = new Settings();
        settings.setOffline(true);
        MavenResolver r = new MavenResolver(local, settings, List.of());
        r.addRepository(remote.url());
        String m = assertThrows(IllegalArgumentException.class,
                () -> r.resolve(List.of(MavenMagic.dependency("demo:greet:1.0")), false, "%maven")).getMessage();
        assertTrue(m.contains("the kernel is offline"), m);
    }

    @Test
    void aMissingArtifactIsNamedWithTheRepositoriesSearched() {
        String m = assertThrows(IllegalArgumentException.class,
                () -> resolver().resolve(List.of(MavenMagic.dependency("demo:nothing:9")), false, "%maven")).getMessage();
        assertTrue(m.startsWith("%maven: demo:nothing:9 was found in none of repo0 (" + remote.url() + ")"), m);
        assertTrue(m.contains("%maven --repo URL demo:nothing:9"), m);
        assertFalse(m.contains("\n"), m);
    }

    @Test
    void aMissingDependencyNamesTheRequestedArtifactThatNeedsIt() {
        String m = assertThrows(IllegalArgumentException.class,
                () -> resolver().resolve(List.of(MavenMagic.dependency("demo:broken:1.0")), false, "%maven")).getMessage();
        assertTrue(m.startsWith("%maven: demo:gone:1.0 (needed by demo:broken:1.0) was found in none of"), m);
    }

    @Test
    void pomFragmentsBecomeAProject() {
        String deps = LoadFromPomMagic.pom("<dependency><groupId>a</groupId><artifactId>b</artifactId>"
                + "<version>1</version></dependency>");
        assertEquals(1, LoadFromPomMagic.read(deps).getDependencies().size());
        assertEquals(LoadFromPomMagic.FRAGMENT, LoadFromPomMagic.coordinates(LoadFromPomMagic.read(deps)));
        String project = "<project><modelVersion>4.0.0</modelVersion><groupId>g</groupId><artifactId>p</artifactId>"
                + "<version>2</version></project>";
        assertEquals(project, LoadFromPomMagic.pom("<?xml version=\"1.0\"?>\n" + project));
        assertEquals("g:p:pom:2", LoadFromPomMagic.coordinates(LoadFromPomMagic.read(project)).toString());
        String notXml = assertThrows(IllegalArgumentException.class, () -> LoadFromPomMagic.pom("demo:greet:1.0"))
                .getMessage();
        assertTrue(notXml.contains("the cell holds no XML"), notXml);
        String broken = assertThrows(IllegalArgumentException.class,
                () -> LoadFromPomMagic.read(LoadFromPomMagic.pom("<dependency><groupId>a</groupId>"))).getMessage();
        assertTrue(broken.startsWith("%%loadFromPOM: the cell is not a valid POM"), broken);
    }

    @Test
    void loadFromPomReadsPropertiesAndRepositoriesLikeMaven() throws Exception {
        // the repository comes from the cell, the version from a property: Maven's POM reading, not the magic's
        MavenResolver bare = new MavenResolver(local, new Settings(), List.of());
        List<String> added = new ArrayList<>();
        LoadFromPomMagic magic = new LoadFromPomMagic(() -> bare, added::addAll);
        String cell = "<properties><greet.version>1.0</greet.version></properties>\n"
                + "<repositories><repository><id>course</id><url>" + remote.url() + "</url></repository></repositories>\n"
                + "<dependencies><dependency><groupId>demo</groupId><artifactId>greet</artifactId>"
                + "<version>${greet.version}</version></dependency></dependencies>";
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        List<Path> jars = magic.cell(List.of(), cell, new PrintStream(said, true, StandardCharsets.UTF_8));
        assertEquals(List.of("greet-1.0.jar", "base-1.0.jar"), names(jars));
        assertEquals(2, added.size());
        String missing = assertThrows(IllegalArgumentException.class, () -> magic.cell(List.of("--offline"),
                "<dependency><groupId>demo</groupId><artifactId>nothing</artifactId><version>3</version></dependency>",
                new PrintStream(new ByteArrayOutputStream()))).getMessage();
        assertTrue(missing.startsWith("%%loadFromPOM: demo:nothing:3 is not in the local repository"), missing);
    }
}
