package org.mpi2nccl.lessons.figures;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The lessons' pictures of the ideas (data parallelism, the ring all-reduce, NCCL's bootstrap, ZeRO-1, FSDP, tensor
 * and pipeline parallelism), drawn by code as SVG into {@code notebooks/figures/}, where the notebooks' markdown
 * cells show them. The files are committed; {@code FiguresTest} fails when one differs from what this code draws.
 *
 * <p>Regenerate them after changing a figure, from the repository root:
 * <pre>
 *   ./build.sh setup
 *   java -cp "toolkit/target/mpi2nccl-toolkit.jar:toolkit/target/lib/*" org.mpi2nccl.lessons.figures.Figures notebooks/figures
 * </pre>
 */
public final class Figures {
    /** The command that rewrites the committed files, from the repository root. */
    public static final String REGENERATE = "./build.sh setup && java -cp \"toolkit/target/mpi2nccl-toolkit.jar:"
            + "toolkit/target/lib/*\" org.mpi2nccl.lessons.figures.Figures notebooks/figures";

    private Figures() {}

    /** Every figure by file name (without ".svg"), in the order of the lessons. */
    public static Map<String, Supplier<String>> all() {
        Map<String, Supplier<String>> m = new LinkedHashMap<>();
        m.put(DataParallelFigure.NAME, DataParallelFigure::svg);
        m.put(RingFigure.NAME, RingFigure::svg);
        m.put(BootstrapFigure.NAME, BootstrapFigure::svg);
        m.put(Zero1Figure.NAME, Zero1Figure::svg);
        m.put(FsdpFigure.NAME, FsdpFigure::svg);
        m.put(TensorPipelineFigure.NAME, TensorPipelineFigure::svg);
        return m;
    }

    /** Writes every figure into the folder given (notebooks/figures when none is). */
    public static void main(String[] args) throws IOException {
        Path folder = Path.of(args.length > 0 ? args[0] : "notebooks/figures");
        if (args.length == 0 && !Files.isDirectory(Path.of("notebooks"))) {
            throw new IllegalArgumentException("run this from the repository root, or name the folder to write into");
        }
        Files.createDirectories(folder);
        for (Map.Entry<String, Supplier<String>> e : all().entrySet()) {
            Path file = folder.resolve(e.getKey() + ".svg");
            Files.writeString(file, e.getValue().get(), StandardCharsets.UTF_8);
            System.out.println("wrote " + file);
        }
    }
}
