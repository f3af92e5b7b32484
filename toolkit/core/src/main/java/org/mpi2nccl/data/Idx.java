package org.mpi2nccl.data;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * The IDX format of MNIST and Fashion-MNIST (optionally gzip-compressed): a big-endian magic
 * {@code 0x00 0x00 type ndim} (type 0x08 = unsigned byte), {@code ndim} big-endian int32 dimensions, then the
 * data. Errors name the file and what was expected; a truncated or corrupt gzip file is a {@link Damaged}.
 */
public final class Idx {
    private Idx() {}

    /** An unsigned-byte IDX array. */
    public record Array(int[] dims, byte[] data) {}

    /** The file is there but its bytes are not what they were: cut short in a copy or download, or corrupted. */
    public static final class Damaged extends IOException {
        public final Path file;

        Damaged(Path file, String what, Throwable cause) {
            super(file + " is damaged: " + what, cause);
            this.file = file;
        }
    }

    public static Array readUnsignedBytes(Path file, int expectedDims) throws IOException {
        if (!Files.isRegularFile(file)) throw new NoSuchFileException(file.toString(), null, "IDX file not found");
        try {
            return read(file, expectedDims);
        } catch (ZipException | EOFException e) {
            // the inflater's words ("Unexpected end of ZLIB input stream", "Corrupt GZIP trailer") name no file
            throw new Damaged(file, "its gzip data is truncated or corrupt (" + e.getMessage() + ")", e);
        }
    }

    private static Array read(Path file, int expectedDims) throws IOException {
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
             DataInputStream in = new DataInputStream(isGzip(file) ? new GZIPInputStream(raw, 1 << 16) : raw)) {
            int magic;
            try {
                magic = in.readInt();
            } catch (EOFException e) {
                throw new Damaged(file, "empty or truncated, expected an IDX header (magic 0x0000080" + expectedDims + ")", e);
            }
            int type = (magic >>> 8) & 0xFF, ndim = magic & 0xFF;
            if ((magic >>> 16) != 0 || type != 0x08 || ndim != expectedDims)
                throw new IOException(String.format("%s: not an unsigned-byte IDX file with %d dimensions: magic 0x%08X, expected 0x%08X",
                        file, expectedDims, magic, 0x800 | expectedDims));
            int[] dims = new int[ndim];
            long total = 1;
            try {
                for (int i = 0; i < ndim; i++) {
                    dims[i] = in.readInt();
                    if (dims[i] < 0) throw new Damaged(file, "negative dimension " + dims[i] + " in the IDX header", null);
                    total *= dims[i];
                    if (total > Integer.MAX_VALUE) {   // checked at each step: the product of three ints overflows a long
                        throw new Damaged(file, "the IDX header's dimensions make more than 2^31 bytes (" + dimsText(
                                java.util.Arrays.copyOf(dims, i + 1)) + ")", null);
                    }
                }
            } catch (EOFException e) {
                throw new Damaged(file, "truncated IDX header (expected " + ndim + " dimensions)", e);
            }
            byte[] data = new byte[(int) total];
            int read = in.readNBytes(data, 0, data.length);
            if (read < data.length)
                throw new Damaged(file, "truncated: the header promises " + dimsText(dims) + " = " + total
                        + " bytes of data, the file holds " + read, null);
            // Read to the end: a gzip stream checks its trailer (CRC and length) only there, and a corrupt stream can
            // inflate to more bytes than the header promises.
            if (in.read() != -1) {
                throw new Damaged(file, "it holds more data than its header promises (" + dimsText(dims) + " = " + total
                        + " bytes)", null);
            }
            return new Array(dims, data);
        }
    }

    private static boolean isGzip(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return in.read() == 0x1f && in.read() == 0x8b;
        }
    }

    private static String dimsText(int[] dims) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < dims.length; i++) b.append(i == 0 ? "" : " x ").append(dims[i]);
        return b.toString();
    }
}
