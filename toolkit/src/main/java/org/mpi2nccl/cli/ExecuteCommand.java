package org.mpi2nccl.cli;

import org.mpi2nccl.notebook.Notebook;
import org.mpi2nccl.notebook.NotebookExecutor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code mpi2nccl execute NOTEBOOK...}: runs notebooks headless with the project's kernel in this JVM (no Python,
 * no Jupyter), for GPU nodes and batch clusters that have neither. Each notebook gets a fresh kernel; the executed
 * copy (NAME.executed.ipynb beside it, or in --out) opens in Jupyter as if it had run there. Exit status 1 when a
 * cell raised (unless --allow-errors) or ran past its time limit, 2 for a file that is not a notebook.
 */
@Command(name = "execute", mixinStandardHelpOptions = true,
        description = {"Run notebooks' code cells in order with the mpi2nccl kernel, without Jupyter, and write the "
                + "executed notebooks (outputs in, nbformat 4.5).",
                "Cells run with this directory as their working directory."})
public final class ExecuteCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "NOTEBOOK", description = "the .ipynb files to run")
    List<Path> notebooks;

    @Option(names = "--out", paramLabel = "DIR", description = "folder for the executed notebooks (same file names)")
    Path outDir;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "the executed notebook (one NOTEBOOK only)")
    Path output;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "600",
            description = "time limit of each cell (default ${DEFAULT-VALUE} s)")
    int cellTimeout;

    @Option(names = "--notebook-timeout", paramLabel = "SECONDS", defaultValue = "3600",
            description = "time limit of each notebook (default ${DEFAULT-VALUE} s)")
    int notebookTimeout;

    @Option(names = "--allow-errors", description = "run every cell even after one raised, and exit 0")
    boolean allowErrors;

    @Override
    public Integer call() throws IOException {
        if (cellTimeout < 1 || notebookTimeout < 1) {
            throw new IllegalArgumentException("--timeout and --notebook-timeout take a number of seconds, 1 or more");
        }
        if (output != null && (notebooks.size() != 1 || outDir != null)) {
            throw new IllegalArgumentException("--output names the executed copy of one notebook: with several, use --out DIR");
        }
        if (outDir != null) OutputPlace.requireWritable(outDir, "--out");
        if (output != null) OutputPlace.requireWritable(output.toAbsolutePath().getParent(), "--output");
        List<Notebook> read = new ArrayList<>();
        for (Path p : notebooks) { // every file is checked before any kernel starts
            try {
                read.add(Notebook.read(p));
            } catch (NoSuchFileException e) {
                throw new IllegalArgumentException("no such notebook: " + p);
            }
        }
        PrintStream log = System.err;
        NotebookExecutor executor = new NotebookExecutor(new NotebookExecutor.Options(Duration.ofSeconds(cellTimeout),
                Duration.ofSeconds(notebookTimeout), allowErrors), log);
        int failed = 0;
        for (int i = 0; i < notebooks.size(); i++) {
            Path in = notebooks.get(i);
            Path out = target(in);
            NotebookExecutor.Result r = executor.run(read.get(i), out);
            boolean ok = r.stoppedBecause() == null && (allowErrors || r.failures().isEmpty());
            failed += ok ? 0 : 1;
            System.out.println((ok ? "ok   " : "FAIL ") + in + ": " + NotebookExecutor.summary(r) + " -> " + out);
        }
        if (notebooks.size() > 1) {
            System.out.println((notebooks.size() - failed) + "/" + notebooks.size() + " notebooks ran clean");
        }
        return failed == 0 ? 0 : 1;
    }

    private Path target(Path in) throws IOException {
        if (output != null) {
            return output;
        }
        String name = in.getFileName().toString();
        if (outDir != null) {
            Files.createDirectories(outDir);
            return outDir.resolve(name);
        }
        String stem = name.endsWith(".ipynb") ? name.substring(0, name.length() - ".ipynb".length()) : name;
        return in.resolveSibling(stem + ".executed.ipynb");
    }
}
