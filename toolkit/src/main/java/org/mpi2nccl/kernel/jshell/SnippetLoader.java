package org.mpi2nccl.kernel.jshell;

import jdk.jshell.execution.LoaderDelegate;
import jdk.jshell.spi.ExecutionControl.ClassBytecodes;
import jdk.jshell.spi.ExecutionControl.ClassInstallException;
import jdk.jshell.spi.ExecutionControl.InternalException;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where the classes JShell compiles from cells are defined.
 *
 * <p>JShell's own loader always hangs below the system class loader (JDK 17). A rank engine in MPJ's multicore
 * mode is a thread whose classes (MPJ's {@code mpi.MPI} included) come from its own per-rank class loader, so
 * the cells of rank 2 must see rank 2's {@code MPI}, not a fresh copy: this loader takes its parent explicitly.
 * Jars already visible through the parent are not added a second time (a second copy of a class would have
 * its own statics).
 */
final class SnippetLoader implements LoaderDelegate {
    private final CellClassLoader loader;
    private final Set<String> visibleThroughParent;
    private final Map<String, Class<?>> defined = new ConcurrentHashMap<>();

    private volatile String refusal;

    /** Why the last classes were refused (a call that ends the JVM), once; null if none was. */
    String takeRefusal() {
        String r = refusal;
        refusal = null;
        return r;
    }

    SnippetLoader(ClassLoader parent, Set<String> visibleThroughParent) {
        this.loader = new CellClassLoader(parent);
        this.visibleThroughParent = visibleThroughParent;
    }

    ClassLoader classLoader() {
        return loader;
    }

    @Override
    public void load(ClassBytecodes[] cbcs) throws ClassInstallException {
        boolean[] installed = new boolean[cbcs.length];
        int i = 0;
        for (ClassBytecodes cbc : cbcs) {
            String exit = ExitCalls.find(cbc.bytecodes());
            if (exit != null) {
                // Refused before the class exists, so it never runs; JShell reports nothing of a failed install,
                // so the evaluator asks (takeRefusal) and fails the cell with this.
                refusal = exit + " is not allowed in a cell: the kernel keeps running; to stop rank engines use"
                        + " %mpj stop";
                throw new ClassInstallException(refusal, installed);
            }
        }
        try {
            for (ClassBytecodes cbc : cbcs) {
                loader.declare(cbc.name(), cbc.bytecodes());
            }
            for (ClassBytecodes cbc : cbcs) {
                Class<?> c = loader.loadClass(cbc.name());
                defined.put(cbc.name(), c);
                installed[i++] = true;
                c.getDeclaredMethods(); // link now, so that a broken class fails here and not in the middle of a run
            }
        } catch (Throwable ex) {
            throw new ClassInstallException("load: " + ex.getMessage(), installed);
        }
    }

    @Override
    public void classesRedefined(ClassBytecodes[] cbcs) {
        for (ClassBytecodes cbc : cbcs) {
            loader.declare(cbc.name(), cbc.bytecodes());
        }
    }

    @Override
    public void addToClasspath(String path) throws InternalException {
        try {
            for (String entry : path.split(File.pathSeparator)) {
                if (entry.isEmpty() || visibleThroughParent.contains(new File(entry).getAbsolutePath())) {
                    continue;
                }
                loader.addURL(new File(entry).toURI().toURL());
            }
        } catch (MalformedURLException ex) {
            throw new InternalException("bad class path entry in '" + path + "': " + ex.getMessage());
        }
    }

    @Override
    public Class<?> findClass(String name) throws ClassNotFoundException {
        Class<?> c = defined.get(name);
        return c != null ? c : loader.loadClass(name);
    }

    /** A URL class loader that also defines classes from bytes JShell hands over. */
    private static final class CellClassLoader extends URLClassLoader {
        private final Map<String, byte[]> declared = new ConcurrentHashMap<>();

        CellClassLoader(ClassLoader parent) {
            super(new URL[0], parent);
        }

        void declare(String name, byte[] bytes) {
            declared.put(name, bytes);
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] bytes = declared.get(name);
            return bytes != null ? defineClass(name, bytes, 0, bytes.length) : super.findClass(name);
        }

        @Override
        protected void addURL(URL url) {
            super.addURL(url);
        }
    }
}
