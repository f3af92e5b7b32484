package org.mpi2nccl.kernel.magic;

import io.github.spencerpark.jupyter.kernel.magic.common.Load;
import io.github.spencerpark.jupyter.kernel.magic.registry.MagicArgsParseException;

import java.io.FileNotFoundException;
import java.nio.file.Path;
import java.util.List;

/**
 * IJava's {@code %load FILE}: runs a file of Java snippets as if it were the cell (its magics included), or every
 * code cell of a notebook ({@code .ipynb}). basekernel's {@link Load} does the work; this gives its failures as one
 * line. The name may leave out the extension: {@code .jsh}, {@code .jshell}, {@code .java}, then {@code .ipynb}.
 */
public final class LoadMagic {
    static final List<String> EXTENSIONS = List.of(".jsh", ".jshell", ".java");
    private final Load load;

    /** @param runCell runs code as a cell of this kernel */
    public LoadMagic(Load.Executor runCell) {
        this.load = new Load(EXTENSIONS, runCell);
    }

    public void load(List<String> args) throws Exception {
        try {
            load.load(args);
        } catch (MagicArgsParseException e) {
            throw new IllegalArgumentException("%load takes one file: %load FILE (Java snippets, e.g. helpers.jsh, or a"
                    + " notebook)");
        } catch (FileNotFoundException e) {
            throw new IllegalArgumentException("%load: no file '" + args.get(0) + "' in " + Path.of("").toAbsolutePath()
                    + " (also tried " + String.join(", ", EXTENSIONS) + ", .ipynb): check the name, or write it"
                    + " first with %%writefile");
        }
    }
}
