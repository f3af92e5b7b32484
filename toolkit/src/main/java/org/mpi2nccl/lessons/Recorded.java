package org.mpi2nccl.lessons;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.mpi2nccl.files.PrivateTemp;

/**
 * Results recorded on the GPU machine, which lessons 04, 05 and 06 show where there is no GPU. A set is a folder of
 * results/ (bandwidth-2gpu, data-parallel-2gpu, gpu-scaling, gpu-test-suite). The build copies the few files the lessons read
 * into the toolkit, under org/mpi2nccl/lessons/recorded/SET/, so a lesson copied out of the repository (as students
 * do) finds them on the class path. In a checkout, results/SET/ is read first: results recorded since the last
 * build show at once. Beside each set, SET.properties says on which machine, when and at which commit each file was
 * recorded.
 */
public final class Recorded {
    /** NCCL's all-reduce bandwidth against torch.distributed and the MPI route (lesson 04). */
    public static final Recorded BANDWIDTH = new Recorded("bandwidth-2gpu");
    /** Data-parallel training on 2 GPUs: its NCCL logs and GPU timeline (lessons 05 and 06). */
    public static final Recorded DATA_PARALLEL = new Recorded("data-parallel-2gpu");
    /** The speedup experiment on 1, 2, 4 ... GPUs beside PyTorch DDP (lesson 05). */
    public static final Recorded GPU_SCALING = new Recorded("gpu-scaling");
    /** The JUnit log of the GPU test suite (lesson 06's diagnosis). */
    public static final Recorded GPU_TESTS = new Recorded("gpu-test-suite");

    private static final String RESOURCES = "/org/mpi2nccl/lessons/recorded/";
    /** Where files read from a jar are written, once per JVM: the readers take files. */
    private static Path extracted;

    private final String set;
    private final Properties about = new Properties();

    Recorded(String set) {
        this.set = set;
        try (InputStream in = Recorded.class.getResourceAsStream(RESOURCES + set + ".properties")) {
            if (in != null) {
                about.load(new java.io.InputStreamReader(in, java.nio.charset.StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The folder in the repository, e.g. "results/bandwidth-2gpu". */
    public String folder() {
        return "results/" + set;
    }

    /** The file {@code rel} of this set ("nccl/bandwidth.csv"), from the checkout or the toolkit; null if neither has it. */
    public Path file(String rel) {
        return file(rel, Path.of(""));
    }

    /** {@link #file(String)} as seen from the folder {@code from}. */
    Path file(String rel, Path from) {
        Path inCheckout = inCheckout(rel, from);
        return inCheckout != null ? inCheckout : onClassPath(rel);
    }

    /** {@code rel} under results/SET/, looked for from {@code from} upwards (a lesson in a checkout runs in notebooks/). */
    Path inCheckout(String rel, Path from) {
        Path dir = from.toAbsolutePath();
        for (int up = 0; dir != null && up < 4; up++, dir = dir.getParent()) {
            Path f = dir.resolve(folder()).resolve(rel);
            if (Files.isReadable(f)) {
                return f;
            }
        }
        return null;
    }

    /** {@code rel} as the toolkit carries it; null if it does not. */
    Path onClassPath(String rel) {
        URL url = Recorded.class.getResource(RESOURCES + set + "/" + rel);
        return url == null ? null : local(url, set + "/" + rel);
    }

    /** A resource as a file: itself from a class folder, a copy under a temporary folder ({@code name}) from a jar. */
    static Path local(URL url, String name) {
        try {
            if (url.getProtocol().equals("file")) {
                return Path.of(url.toURI());
            }
            Path copy = extractedFolder().resolve(name);
            if (!Files.isReadable(copy)) {
                Files.createDirectories(copy.getParent(), PrivateTemp.folderMode());
                try (InputStream in = url.openStream();
                     OutputStream out = Files.newOutputStream(Files.createFile(copy, PrivateTemp.fileMode()))) {
                    in.transferTo(out);
                }
            }
            return copy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * This process's folder in the user's private one: removed at exit, or by a later start if this process is
     * killed (a folder per run in the shared temporary folder would pile up and be readable by others).
     */
    private static synchronized Path extractedFolder() {
        if (extracted == null) {
            extracted = PrivateTemp.newFolder(PrivateTemp.folder(), "recorded");
        }
        return extracted;
    }

    /** The machine the set was recorded on, e.g. "2x NVIDIA H200 (NV18)"; "an unnamed machine" if unknown. */
    public String machine() {
        return about.getProperty("machine", "an unnamed machine");
    }

    /** The machine {@code rel} was recorded on: its own {@code rel.machine} line where a file came from another run. */
    public String machine(String rel) {
        return about.getProperty(rel + ".machine", machine());
    }

    /** When, with which NCCL and at which commit {@code rel} was recorded, e.g. "2026-11-22 11:30 UTC, NCCL 2.28.9, commit ab100c1". */
    public String when(String rel) {
        return about.getProperty(rel, "date and commit not recorded");
    }

    /**
     * One line for a lesson: where the file came from and how it was recorded, e.g. "RECORDED on 2x NVIDIA H200
     * (NV18) (not this machine), 2026-11-22 11:30 UTC, NCCL 2.28.9, commit ab100c1: results/bandwidth-2gpu/nccl/bandwidth.csv,
     * the toolkit's copy".
     */
    public String source(String rel) {
        Path f = file(rel);
        String where = f == null ? "" : inCheckout(rel, Path.of("")) != null ? ", in this checkout" : ", the toolkit's copy";
        return "RECORDED on " + machine(rel) + " (not this machine), " + when(rel) + ": " + folder() + "/" + rel + where;
    }

    /** What a lesson says when a set lacks {@code rel}: neither this checkout nor the toolkit carries it. */
    public String missing(String rel) {
        return "No recorded " + folder() + "/" + rel + ", neither in a checkout above " + Path.of("").toAbsolutePath()
                + " nor in the toolkit: " + about.getProperty("command", "it comes from a run on a GPU machine") + ".";
    }
}
