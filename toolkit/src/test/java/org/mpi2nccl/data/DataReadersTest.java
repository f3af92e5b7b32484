package org.mpi2nccl.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fashion-MNIST (IDX, gzip) and CIFAR-10 (binary batches) readers on files written here in the real formats. */
class DataReadersTest {

    @TempDir
    Path dir;

    /** An IDX file: magic 0x0000080N, N big-endian dimensions, unsigned bytes. */
    static byte[] idx(int[] dims, byte[] data) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(0x800 | dims.length);
            for (int d : dims) out.writeInt(d);
            out.write(data);
        }
        return bytes.toByteArray();
    }

    static void gz(Path file, byte[] content) throws IOException {
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(content);
        }
    }

    private void writeFashion(int n, boolean gzip) throws IOException {
        byte[] pixels = new byte[n * 784];
        for (int i = 0; i < pixels.length; i++) pixels[i] = (byte) (i * 7);
        byte[] labels = new byte[n];
        for (int i = 0; i < n; i++) labels[i] = (byte) (i % 10);
        for (String split : new String[] {"train", "t10k"}) {
            byte[] img = idx(new int[] {n, 28, 28}, pixels), lab = idx(new int[] {n}, labels);
            if (gzip) {
                gz(dir.resolve(split + "-images-idx3-ubyte.gz"), img);
                gz(dir.resolve(split + "-labels-idx1-ubyte.gz"), lab);
            } else {
                Files.write(dir.resolve(split + "-images-idx3-ubyte"), img);
                Files.write(dir.resolve(split + "-labels-idx1-ubyte"), lab);
            }
        }
    }

    @Test
    void readsGzipAndPlainIdx() throws IOException {
        for (boolean gzip : new boolean[] {true, false}) {
            writeFashion(12, gzip);
            assertTrue(FashionMnist.isPresent(dir));
            ArrayDataset train = FashionMnist.train(dir);
            assertEquals(12, train.size());
            assertArrayEquals(new int[] {1, 28, 28}, train.featureShape());
            float[] x = new float[784];
            train.features(3, x, 0);
            assertEquals(((3 * 784 + 5) * 7 & 0xFF) / 255f, x[5], 0f);
            assertEquals(3, train.label(3));
            for (Path p : Files.list(dir).toList()) Files.delete(p);
        }
    }

    @Test
    void truncatedOrWrongFilesAreNamedWithWhatWasExpected() throws IOException {
        writeFashion(5, true);
        byte[] full = idx(new int[] {5, 28, 28}, new byte[5 * 784]);
        gz(dir.resolve("train-images-idx3-ubyte.gz"), java.util.Arrays.copyOf(full, full.length - 100));
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> FashionMnist.train(dir));
        assertTrue(e.getMessage().contains("train-images-idx3-ubyte.gz") && e.getMessage().contains("truncated")
                && e.getMessage().contains("5 x 28 x 28"), e.getMessage());

        gz(dir.resolve("train-images-idx3-ubyte.gz"), idx(new int[] {5}, new byte[5]));
        e = assertThrows(UncheckedIOException.class, () -> FashionMnist.train(dir));
        assertTrue(e.getMessage().contains("magic 0x00000801, expected 0x00000803"), e.getMessage());

        gz(dir.resolve("train-images-idx3-ubyte.gz"), idx(new int[] {4, 28, 28}, new byte[4 * 784]));
        e = assertThrows(UncheckedIOException.class, () -> FashionMnist.train(dir));
        assertTrue(e.getMessage().contains("4 images") && e.getMessage().contains("5 labels"), e.getMessage());

        Files.delete(dir.resolve("t10k-labels-idx1-ubyte.gz"));
        e = assertThrows(UncheckedIOException.class, () -> FashionMnist.test(dir));
        assertTrue(e.getMessage().contains("t10k-labels-idx1-ubyte.gz") && e.getMessage().contains("not found")
                && e.getMessage().contains("dataset-fashion-mnist"), e.getMessage());
    }

    @Test
    void aTruncatedOrCorruptGzipFileIsNamedAsDamagedWithHowToGetItAgain() throws IOException {
        writeFashion(50, true);
        Path images = dir.resolve("train-images-idx3-ubyte.gz");
        byte[] good = Files.readAllBytes(images);
        Files.write(images, java.util.Arrays.copyOf(good, good.length / 2));        // a download cut short
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> FashionMnist.train(dir));
        assertTrue(e.getMessage().startsWith(images + " is damaged") && e.getMessage().contains("truncated or corrupt")
                && e.getMessage().contains("apt-get install --reinstall dataset-fashion-mnist")
                && e.getMessage().contains("MPI2NCCL_FASHION_MNIST"), e.getMessage());

        byte[] badCrc = good.clone();
        badCrc[badCrc.length - 6] ^= 0x55;                                            // the trailer's CRC-32
        Files.write(images, badCrc);
        e = assertThrows(UncheckedIOException.class, () -> FashionMnist.train(dir));
        assertTrue(e.getMessage().startsWith(images + " is damaged") && e.getMessage().contains("GZIP trailer"), e.getMessage());

        Files.write(images, good);
        assertEquals(50, FashionMnist.train(dir).size());
    }

    /**
     * A byte changed anywhere inside the compressed data (a bad disk, a bad copy) is never read as other images: it
     * is named as damaged, or (a flip in the last byte's unused bits) changes nothing that is read.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 16, 256})
    void aGzipFileCorruptedInTheMiddleIsNeverReadAsOtherData(int levels) throws IOException {
        writeFashion(50, true);
        Path images = dir.resolve("train-images-idx3-ubyte.gz");
        byte[] pixels = new byte[50 * 784];
        java.util.Random random = new java.util.Random(7);   // 0: a repeating pattern; 16: few grey levels; 256: noise
        for (int i = 0; i < pixels.length; i++) pixels[i] = (byte) (levels == 0 ? i * 7 : random.nextInt(levels) * (256 / levels));
        gz(images, idx(new int[] {50, 28, 28}, pixels));
        byte[] good = Files.readAllBytes(images);
        float[] expected = features(FashionMnist.train(dir));
        List<Integer> misread = new java.util.ArrayList<>();
        for (int at = 20; at < good.length - 8; at += Math.max(1, (good.length - 28) / 300)) {   // past the header, before the trailer
            for (int flip : new int[] {0x01, 0x80}) {
                byte[] bad = good.clone();
                bad[at] ^= (byte) flip;
                Files.write(images, bad);
                try {
                    if (!java.util.Arrays.equals(expected, features(FashionMnist.train(dir)))) misread.add(at);
                } catch (UncheckedIOException damaged) {
                    assertTrue(damaged.getMessage().contains(images.toString()), damaged.getMessage());
                }
            }
        }
        assertEquals(List.of(), misread, "offsets whose corruption was read as other images (file of " + good.length + " bytes)");
    }

    private static float[] features(ArrayDataset d) {
        float[] all = new float[d.size() * 784];
        for (int i = 0; i < d.size(); i++) d.features(i, all, i * 784);
        return all;
    }

    @Test
    void debianFashionMnistFiles() {
        Path debian = Path.of(FashionMnist.DEBIAN_DIR);
        boolean present = FashionMnist.isPresent(debian);
        if (!present) System.out.println("Debian dataset-fashion-mnist not installed: skipped (" + debian + ")");
        Assumptions.assumeTrue(present, "Debian dataset-fashion-mnist not installed: skipped");
        ArrayDataset train = FashionMnist.train(debian), test = FashionMnist.test(debian);
        assertEquals(60000, train.size());
        assertEquals(10000, test.size());
        int[] perClass = new int[10];
        for (int i = 0; i < test.size(); i++) perClass[test.label(i)]++;
        assertArrayEquals(new int[] {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000}, perClass);
        float[] x = new float[784];
        train.features(0, x, 0);
        float max = 0;
        for (float v : x) max = Math.max(max, v);
        assertTrue(max > 0.5f && max <= 1f, "pixels scaled to [0, 1], max " + max);
    }

    @Test
    void cifarBinaryBatches() throws IOException {
        byte[] batch = new byte[3 * Cifar10.RECORD];
        for (int r = 0; r < 3; r++) {
            batch[r * Cifar10.RECORD] = (byte) (r + 4);
            for (int i = 1; i < Cifar10.RECORD; i++) batch[r * Cifar10.RECORD + i] = (byte) (r * 50 + i % 7);
        }
        Files.write(dir.resolve("test_batch.bin"), batch);
        ArrayDataset test = Cifar10.test(dir);
        assertEquals(3, test.size());
        assertArrayEquals(new int[] {3, 32, 32}, test.featureShape());
        assertEquals(6, test.label(2));
        float[] x = new float[3072];
        test.features(2, x, 0);
        assertEquals((100 + 1 % 7) / 255f, x[0], 0f);
        assertEquals((100 + 3072 % 7) / 255f, x[3071], 0f);

        Files.write(dir.resolve("test_batch.bin"), java.util.Arrays.copyOf(batch, batch.length - 10));
        UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> Cifar10.test(dir));
        assertTrue(e.getMessage().contains("test_batch.bin") && e.getMessage().contains("3073-byte"), e.getMessage());
        e = assertThrows(UncheckedIOException.class, () -> Cifar10.train(dir));
        assertTrue(e.getMessage().contains("data_batch_1.bin") && e.getMessage().contains("not found"), e.getMessage());
    }
}
