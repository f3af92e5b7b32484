package org.mpi2nccl.kernel.magic;

import org.apache.maven.settings.Mirror;
import org.apache.maven.settings.Proxy;
import org.apache.maven.settings.Settings;
import org.apache.maven.settings.building.DefaultSettingsBuilderFactory;
import org.apache.maven.settings.building.DefaultSettingsBuildingRequest;
import org.apache.maven.settings.building.SettingsBuildingException;
import org.eclipse.aether.RepositorySystem;
import org.eclipse.aether.RepositorySystemSession;
import org.eclipse.aether.artifact.Artifact;
import org.eclipse.aether.collection.CollectRequest;
import org.eclipse.aether.graph.Dependency;
import org.eclipse.aether.repository.LocalRepository;
import org.eclipse.aether.repository.RemoteRepository;
import org.eclipse.aether.repository.WorkspaceReader;
import org.eclipse.aether.resolution.ArtifactResult;
import org.eclipse.aether.resolution.DependencyRequest;
import org.eclipse.aether.resolution.DependencyResolutionException;
import org.eclipse.aether.supplier.RepositorySystemSupplier;
import org.eclipse.aether.supplier.SessionBuilderSupplier;
import org.eclipse.aether.util.artifact.JavaScopes;
import org.eclipse.aether.util.filter.DependencyFilterUtils;
import org.eclipse.aether.util.repository.AuthenticationBuilder;
import org.eclipse.aether.util.repository.DefaultMirrorSelector;
import org.eclipse.aether.util.repository.DefaultProxySelector;

import java.io.File;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Jars and their dependencies from Maven repositories, the way {@code mvn} finds them: Maven Resolver with Maven 3's
 * POM reading, the user's local repository and settings.xml (offline, mirrors, proxies), Maven Central plus the
 * repositories added with {@code --repo}. Used by {@code %maven} and {@code %%loadFromPOM}.
 */
public final class MavenResolver {
    static final String CENTRAL_URL = "https://repo.maven.apache.org/maven2/";

    private final Path localRepository;
    private final boolean offlineBySettings;
    private final Settings settings;
    private final List<RemoteRepository> repositories = new ArrayList<>();
    private RepositorySystem system; // made on first use: it takes a moment, and most kernels never need it

    /**
     * @param localRepository where downloaded jars are kept and looked for first (Maven's ~/.m2/repository)
     * @param settings        settings.xml as Maven reads it (mirrors, proxies, offline)
     * @param repositories    the remote repositories searched, in order
     */
    public MavenResolver(Path localRepository, Settings settings, List<RemoteRepository> repositories) {
        this.localRepository = localRepository.toAbsolutePath();
        this.settings = settings;
        this.offlineBySettings = settings.isOffline();
        this.repositories.addAll(repositories);
    }

    /** Maven Central, where {@code mvn} looks first. */
    public static RemoteRepository central() {
        return new RemoteRepository.Builder("central", "default", CENTRAL_URL).build();
    }

    /**
     * The user's setup, as {@code mvn} sees it: ~/.m2/settings.xml over ${maven.home}/conf/settings.xml; the local
     * repository from -Dmaven.repo.local (Maven's property), else MAVEN_REPO_LOCAL, else settings.xml, else
     * ~/.m2/repository.
     */
    public static MavenResolver forUser() {
        Settings settings = userSettings();
        String local = System.getProperty("maven.repo.local");
        if (local == null || local.isBlank()) {
            local = System.getenv("MAVEN_REPO_LOCAL");
        }
        if (local == null || local.isBlank()) {
            local = settings.getLocalRepository();
        }
        if (local == null || local.isBlank()) {
            local = Path.of(System.getProperty("user.home"), ".m2", "repository").toString();
        }
        return new MavenResolver(Path.of(local), settings, List.of(central()));
    }

    private static Settings userSettings() {
        DefaultSettingsBuildingRequest request = new DefaultSettingsBuildingRequest()
                .setUserSettingsFile(Path.of(System.getProperty("user.home"), ".m2", "settings.xml").toFile())
                .setSystemProperties(System.getProperties());
        String mavenHome = System.getProperty("maven.home", System.getenv("MAVEN_HOME"));
        if (mavenHome != null) {
            request.setGlobalSettingsFile(new File(mavenHome, "conf/settings.xml"));
        }
        try {
            return new DefaultSettingsBuilderFactory().newInstance().build(request).getEffectiveSettings();
        } catch (SettingsBuildingException e) {
            // A broken settings.xml must not take the kernel down: Maven's defaults, and the reason where it shows.
            System.err.println("settings.xml ignored: " + e.getProblems().get(0));
            return new Settings();
        }
    }

    public Path localRepository() {
        return localRepository;
    }

    /** The remote repositories searched, Maven Central first. */
    public List<RemoteRepository> repositories() {
        return List.copyOf(repositories);
    }

    /** Adds a repository (http, https or file URL) searched from now on; returns it. */
    public RemoteRepository addRepository(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (java.net.URISyntaxException e) {
            uri = null;
        }
        if (uri == null || uri.getScheme() == null || !List.of("http", "https", "file").contains(uri.getScheme())) {
            throw new IllegalArgumentException("'" + url + "' is not a repository URL: give an http(s):// or file:// URL,"
                    + " e.g. --repo https://repo.spring.io/release");
        }
        for (RemoteRepository r : repositories) {
            if (r.getUrl().equals(url)) {
                return r;
            }
        }
        RemoteRepository repo = new RemoteRepository.Builder("repo" + repositories.size(), "default", url).build();
        repositories.add(repo);
        return repo;
    }

    /**
     * The jars of {@code dependencies} and of everything they need (compile and runtime scope, as {@code mvn}
     * puts on a program's class path), downloaded into the local repository where missing.
     *
     * @param magic   the magic's name, for the error message
     * @param offline only the local repository (also when settings.xml says offline)
     */
    public List<Path> resolve(List<Dependency> dependencies, boolean offline, String magic) {
        CollectRequest collect = new CollectRequest();
        collect.setDependencies(dependencies);
        return resolve(collect, null, offline, magic, dependencies.toString());
    }

    /**
     * The jars a POM's dependencies need (its properties, dependency management, repositories and parent taken into
     * account by Maven's own POM reading): {@code pom} is served from a workspace as the artifact {@code project}.
     * Dependencies of every scope it lists are included (a notebook has one class path), theirs as for
     * {@link #resolve(List, boolean, String)}.
     */
    public List<Path> resolvePom(Artifact project, Path pom, boolean offline, String magic) {
        WorkspaceReader workspace = new SinglePomWorkspace(project, pom);
        CollectRequest collect = new CollectRequest();
        collect.setRoot(new Dependency(project, JavaScopes.COMPILE));
        List<Path> jars = resolve(collect, workspace, offline, magic, project.toString());
        jars.remove(pom);
        return jars;
    }

    private List<Path> resolve(CollectRequest collect, WorkspaceReader workspace, boolean offline, String magic,
                               String what) {
        boolean isOffline = offline || offlineBySettings;
        RepositorySystem repositorySystem = system();
        RepositorySystemSession.SessionBuilder builder = new SessionBuilderSupplier(repositorySystem).get()
                // "simple": a jar in the local repository counts wherever it came from, so that offline works
                // from the local repository alone (Maven's default remembers each jar's repository and, offline,
                // hides jars of repositories this call does not name: those added with --repo in an earlier kernel)
                .withLocalRepositories(new LocalRepository(localRepository, "simple"))
                .setOffline(isOffline)
                .setMirrorSelector(mirrors())
                .setProxySelector(proxies())
                .setSystemProperties(System.getProperties());
        if (workspace != null) {
            builder.setWorkspaceReader(workspace);
        }
        try (RepositorySystemSession.CloseableSession session = builder.build()) {
            collect.setRepositories(repositorySystem.newResolutionRepositories(session, repositories));
            DependencyRequest request = new DependencyRequest(collect,
                    DependencyFilterUtils.classpathFilter(workspace == null ? JavaScopes.RUNTIME : JavaScopes.TEST));
            List<Path> jars = new ArrayList<>();
            for (ArtifactResult r : repositorySystem.resolveDependencies(session, request).getArtifactResults()) {
                if (r.getArtifact() != null && r.getArtifact().getPath() != null) {
                    jars.add(r.getArtifact().getPath());
                }
            }
            return jars;
        } catch (DependencyResolutionException e) {
            // the repositories searched: mirrors (settings.xml) in place of those they stand for
            throw new IllegalArgumentException(MavenErrors.explain(magic, e, isOffline, localRepository,
                    collect.getRepositories()));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(magic + ": could not resolve " + what + ": "
                    + MavenErrors.firstLine(e) + " (local repository " + localRepository + ")", e);
        }
    }

    private synchronized RepositorySystem system() {
        if (system == null) {
            system = new RepositorySystemSupplier().get();
        }
        return system;
    }

    private DefaultMirrorSelector mirrors() {
        DefaultMirrorSelector mirrors = new DefaultMirrorSelector();
        for (Mirror m : settings.getMirrors()) {
            mirrors.add(m.getId(), m.getUrl(), m.getLayout(), false, m.isBlocked(), m.getMirrorOf(),
                    m.getMirrorOfLayouts());
        }
        return mirrors;
    }

    private DefaultProxySelector proxies() {
        DefaultProxySelector proxies = new DefaultProxySelector();
        for (Proxy p : settings.getProxies()) {
            if (p.isActive()) {
                AuthenticationBuilder auth = new AuthenticationBuilder().addUsername(p.getUsername())
                        .addPassword(p.getPassword());
                proxies.add(new org.eclipse.aether.repository.Proxy(p.getProtocol(), p.getHost(), p.getPort(),
                        auth.build()), p.getNonProxyHosts());
            }
        }
        return proxies;
    }

    /** Serves one POM file as the given artifact; everything else comes from the repositories. */
    private static final class SinglePomWorkspace implements WorkspaceReader {
        private final Artifact project;
        private final Path pom;
        private final org.eclipse.aether.repository.WorkspaceRepository repository =
                new org.eclipse.aether.repository.WorkspaceRepository("cell");

        SinglePomWorkspace(Artifact project, Path pom) {
            this.project = project;
            this.pom = pom;
        }

        private boolean isProject(Artifact a) {
            return a.getGroupId().equals(project.getGroupId()) && a.getArtifactId().equals(project.getArtifactId())
                    && a.getVersion().equals(project.getVersion());
        }

        @Override
        public org.eclipse.aether.repository.WorkspaceRepository getRepository() {
            return repository;
        }

        @Override
        public File findArtifact(Artifact a) {
            return isProject(a) && "pom".equals(a.getExtension()) ? pom.toFile() : null;
        }

        @Override
        public List<String> findVersions(Artifact a) {
            return isProject(a) ? List.of(project.getVersion()) : List.of();
        }
    }
}
