package org.mpi2nccl.kernel.magic;

import io.github.spencerpark.jupyter.kernel.DisplayStream;
import io.github.spencerpark.jupyter.kernel.display.Renderer;
import io.github.spencerpark.jupyter.kernel.magic.common.DisplayMagics;
import io.github.spencerpark.jupyter.kernel.magic.common.Load;
import io.github.spencerpark.jupyter.kernel.magic.registry.Magics;
import com.google.common.base.Suppliers;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The magics students bring from IJava and IPython: {@code %maven}, {@code %%loadFromPOM}, {@code %load},
 * {@code %%writefile}, and basekernel's display magics ({@code %%html}, {@code %%markdown}, with {@code %%svg},
 * {@code %%latex} and {@code %%javascript} beside them). Each prints to the cell's {@code System.out}.
 */
public final class HabitMagics {
    /** Named in the kernel's "unknown magic" error. */
    public static final String NAMES = "%maven, %%loadFromPOM, %load, %%writefile, %%html, %%markdown";

    private HabitMagics() {
    }

    /**
     * @param addToClassPath adds jars to the cells' class path (the kernel's and the rank engines')
     * @param runCell        runs code as a cell of the kernel
     */
    public static void register(Magics magics, Consumer<List<String>> addToClassPath, Load.Executor runCell,
                                Renderer renderer, DisplayStream display) {
        // settings.xml is read on the first %maven: most kernels never use it
        Supplier<MavenResolver> maven = Suppliers.memoize(MavenResolver::forUser);
        MavenMagic mavenMagic = new MavenMagic(maven, addToClassPath);
        LoadFromPomMagic pomMagic = new LoadFromPomMagic(maven, addToClassPath);
        LoadMagic load = new LoadMagic(runCell);
        magics.registerLineMagic("maven", args -> {
            mavenMagic.line(args, System.out);
            return null;
        });
        magics.registerCellMagic("loadFromPOM", (args, body) -> {
            pomMagic.cell(args, body, System.out);
            return null;
        });
        magics.registerLineMagic("load", args -> {
            load.load(args);
            return null;
        });
        magics.registerCellMagic("writefile", (args, body) -> {
            WriteFileMagic.writefile(args, body, System.out);
            return null;
        });
        magics.registerMagics(new DisplayMagics(renderer, display));
    }
}
