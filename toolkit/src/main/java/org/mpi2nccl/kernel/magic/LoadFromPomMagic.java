package org.mpi2nccl.kernel.magic;

import org.apache.maven.model.Model;
import org.apache.maven.model.io.xpp3.MavenXpp3Reader;
import org.codehaus.plexus.util.xml.pull.XmlPullParserException;
import org.eclipse.aether.artifact.Artifact;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.mpi2nccl.files.PrivateTemp;

import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * IJava's {@code %%loadFromPOM}: a cell holding {@code <dependency>} elements, a {@code <dependencies>} block (with
 * {@code <repositories>}, {@code <properties>}, {@code <dependencyManagement>} beside it if wanted) or a whole
 * {@code <project>}; Maven reads it as a POM and its dependencies' jars are added as by {@code %maven}.
 * {@code %%loadFromPOM --offline} uses the local repository alone.
 */
public final class LoadFromPomMagic {
    /** Coordinates given to a fragment, which has none of its own. */
    static final Artifact FRAGMENT = new DefaultArtifact("notebook", "cell", "pom", "0");

    private final Supplier<MavenResolver> resolver;
    private final Consumer<List<String>> addToClassPath;

    public LoadFromPomMagic(Supplier<MavenResolver> resolver, Consumer<List<String>> addToClassPath) {
        this.resolver = resolver;
        this.addToClassPath = addToClassPath;
    }

    /**
     * The cell as a whole POM: a {@code <project>} as it is; other XML put into a project (bare
     * {@code <dependency>} elements into its {@code <dependencies>} first).
     */
    public static String pom(String body) {
        String xml = body.strip().replaceFirst("^<\\?xml[^>]*\\?>", "").strip();
        if (xml.startsWith("<project")) {
            return xml;
        }
        if (xml.isEmpty() || !xml.startsWith("<")) {
            throw new IllegalArgumentException("%%loadFromPOM: the cell holds no XML: give <dependency> elements,"
                    + " a <dependencies> block or a whole <project>");
        }
        if (!xml.contains("<dependencies>") && !xml.contains("<dependencyManagement>")) {
            xml = "<dependencies>\n" + xml + "\n</dependencies>";
        }
        return "<project><modelVersion>4.0.0</modelVersion><groupId>" + FRAGMENT.getGroupId() + "</groupId>"
                + "<artifactId>" + FRAGMENT.getArtifactId() + "</artifactId><version>" + FRAGMENT.getVersion()
                + "</version><packaging>pom</packaging>\n" + xml + "\n</project>";
    }

    /** The POM as written (no parent or property applied yet), or a one-line error. */
    static Model read(String pom) {
        try {
            return new MavenXpp3Reader().read(new StringReader(pom), false);
        } catch
(XmlPullParserException e) {
            throw new IllegalArgumentException("%%loadFromPOM: the cell is not a valid POM (" + MavenErrors.firstLine(e)
                    + "): check the XML");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The project's own coordinates (a parent's group and version where it inherits them). */
    static Artifact coordinates(Model model) {
        String group = model.getGroupId() != null ? model.getGroupId()
                : model.getParent() != null ? model.getParent().getGroupId() : null;
        String version = model.getVersion() != null ? model.getVersion()
                : model.getParent() != null ? model.getParent().getVersion() : null;
        if (group == null || model.getArtifactId() == null || version == null) {
            throw new IllegalArgumentException("%%loadFromPOM: the <project> has no groupId, artifactId or version:"
                    + " give them, or give only its <dependencies>");
        }
        return new DefaultArtifact(group, model.getArtifactId(), "pom", version);
    }

    /** {@code %%loadFromPOM [--offline]}: resolves the cell's dependencies, adds the jars, says so on {@code out}. */
    public List<Path> cell(List<String> args, String body, PrintStream out) throws IOException {
        boolean offline = false;
        for (String a : args) {
            if (a.equals("--offline") || a.equals("-o")) {
                offline = true;
            } else {
                throw new IllegalArgumentException("%%loadFromPOM: unknown option '" + a + "': it takes only --offline");
            }
        }
        String pom = pom(body);
        Model model = read(pom);
        Artifact project = coordinates(model);
        Path file = Files.createTempFile(PrivateTemp.folder(), "loadFromPOM", ".pom.xml");   // 0600, the user's own folder
        try {
            Files.writeString(file, pom, StandardCharsets.UTF_8);
            List<Path> jars = resolver.get().resolvePom(project, file, offline, "%%loadFromPOM");
            MavenMagic.add(jars, model.getDependencies().size(), out, addToClassPath);
            return jars;
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
