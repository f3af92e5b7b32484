package org.mpi2nccl.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CIFAR-10 in its binary version: files {@code data_batch_1.bin} .. {@code data_batch_5.bin} (training) and
 * {@code test_batch.bin}, each a sequence of 3073-byte records (1 label byte, then 3x32x32 pixel bytes, red,
 * green, blue planes row-major). Pixels are scaled to [0, 1].
 */
public final class Cifar10 {
    private Cifar10() {}

    public static final int RECORD = 1 + 3 * 32 * 32;
    public static final String[] CLASSES = {"airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"};

    /** The five training batches. */
    public static ArrayDataset train(Path dir) {
        return read(dir, "data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin", "data_batch_5.bin");
    }

    public static ArrayDataset test(Path dir) { return read(dir, "test_batch.bin"); }

    /** The given batch files of {@code dir}, concatenated. */
    public static ArrayDataset read(Path dir, String... files) {
        try {
            byte[][] contents = new byte[files.length][];
            int total = 0;
            for (int f = 0; f < files.length; f++) {
                Path p = dir.resolve(files[f]);
                if (!Files.isRegularFile(p))
                    throw new IOException("CIFAR-10 file " + p + " not found (expected the binary version's " + files[f]
                            + " in " + dir + ": cifar-10-binary.tar.gz from https://www.cs.toronto.edu/~kriz/cifar.html)");
                contents[f] = Files.readAllBytes(p);
                if (contents[f].length == 0 || contents[f].length % RECORD != 0)
                    throw new IOException(p + ": " + contents[f].length + " bytes is not a whole number of " + RECORD
                            + "-byte CIFAR-10 records (1 label + 3072 pixels): truncated or not the binary version");
                total += contents[f].length / RECORD;
            }
            float[] x = new float[total * (RECORD - 1)];
            int[] y = new int[total];
            int at = 0;
            for (int f = 0; f < files.length; f++) {
                byte[] b = contents[f];
                for (int r = 0; r < b.length / RECORD; r++, at++) {
                    int base = r * RECORD;
                    y[at] = b[base] & 0xFF;
                    if (y[at] > 9) throw new IOException(dir.resolve(files[f]) + ": record " + r + " has label " + y[at] + ", not a class 0..9");
                    int dst = at * (RECORD - 1);
                    for (int i = 1; i < RECORD; i++) x[dst + i - 1] = (b[base + i] & 0xFF) / 255f;
                }
            }
            return new ArrayDataset(x, y, new int[] {3, 32, 32}, 10);
        } catch (IOException e) {
            throw new UncheckedIOException(e.getMessage(), e);
        }
    }
}
