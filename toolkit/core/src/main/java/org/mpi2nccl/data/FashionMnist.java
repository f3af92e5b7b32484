package org.mpi2nccl.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Fashion-MNIST (Xiao, Rasul, Vollgraf 2017): 60000 training and 10000 test images, 1x28x28, 10 classes,
 * read from the four IDX gzip files. Default folder: Debian's dataset-fashion-mnist package
 * ({@value #DEBIAN_DIR}); override with the {@code MPI2NCCL_FASHION_MNIST} environment variable or a path.
 * Pixels are scaled to [0, 1].
 */
public final class FashionMnist {
    private FashionMnist() {}

    public static final String DEBIAN_DIR = "/usr/share/datasets/fashion-mnist";
    public static final String[] CLASSES = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt",
            "Sneaker", "Bag", "Ankle boot"};

    /** The folder used when none is given: $MPI2NCCL_FASHION_MNIST, else Debian's. */
    public static Path defaultDir() {
        String env = System.getenv("MPI2NCCL_FASHION_MNIST");
        return Paths.get(env != null && !env.isBlank() ? env : DEBIAN_DIR);
    }

    /** True when the four files are in the folder. */
    public static boolean isPresent(Path dir) {
        for (String f : new String[] {"train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"})
            if (find(dir, f) == null) return false;
        return true;
    }

    public static ArrayDataset train(Path dir) { return load(dir, "train"); }

    public static ArrayDataset test(Path dir) { return load(dir, "t10k"); }

    public static ArrayDataset train() { return train(defaultDir()); }

    public static ArrayDataset test() { return test(defaultDir()); }

    private static ArrayDataset load(Path dir, String split) {
        Path images = require(dir, split + "-images-idx3-ubyte");
        Path labels = require(dir, split + "-labels-idx1-ubyte");
        try {
            Idx.Array img = Idx.readUnsignedBytes(images, 3);
            Idx.Array lab = Idx.readUnsignedBytes(labels, 1);
            if (img.dims()[1] != 28 || img.dims()[2] != 28)
                throw new IOException(images + ": images are " + img.dims()[1] + "x" + img.dims()[2] + ", expected 28x28");
            if (img.dims()[0] != lab.dims()[0])
                throw new IOException(images + " holds " + img.dims()[0] + " images but " + labels + " holds " + lab.dims()[0] + " labels");
            float[] x = new float[img.data().length];
            for (int i = 0; i < x.length; i++) x[i] = (img.data()[i] & 0xFF) / 255f;
            int[] y = new int[lab.data().length];
            for (int i = 0; i < y.length; i++) {
                y[i] = lab.data()[i] & 0xFF;
                if (y[i] > 9) throw new IOException(labels + ": label " + y[i] + " of example " + i + " is not a class 0..9");
            }
            return new ArrayDataset(x, y, new int[] {1, 28, 28}, 10);
        } catch (Idx.Damaged e) {
            throw new UncheckedIOException(e.getMessage() + ". Get the file again: on Debian, " + REINSTALL
                    + "; or put good copies of the four files in the folder given with --data / --data-dir or "
                    + "MPI2NCCL_FASHION_MNIST", e);
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
    }

    /** How Debian's copy of the four files is installed again. */
    static final String REINSTALL = "apt-get install --reinstall dataset-fashion-mnist";

    /**
     * Throws UncheckedIOException naming the first of the four files that is missing, and where to get them; the
     * commands call it before they load anything.
     */
    public static void requirePresent(Path dir) {
        for (String split : new String[] {"train", "t10k"}) {
            require(dir, split + "-images-idx3-ubyte");
            require(dir, split + "-labels-idx1-ubyte");
        }
    }

    private static Path require(Path dir, String base) {
        Path p = find(dir, base);
        if (p == null) {
            String where = Files.isDirectory(dir) ? "Fashion-MNIST file " + dir.resolve(base + ".gz") + " not found (expected "
                    + base + ".gz or " + base + " in " + dir : "Fashion-MNIST folder " + dir + " does not exist (";
            throw new UncheckedIOException(new java.io.FileNotFoundException(where + "; on Debian: apt-get install "
                    + "dataset-fashion-mnist, or give the folder holding the four IDX files with --data / --data-dir or "
                    + "MPI2NCCL_FASHION_MNIST)"));
        }
        return p;
    }

    private static Path find(Path dir, String base) {
        for (String name : new String[] {base + ".gz", base}) {
            Path p = dir.resolve(name);
            if (Files.isRegularFile(p)) return p;
        }
        return null;
    }
}
