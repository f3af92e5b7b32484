package org.mpi2nccl.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The version of an NCCL shared library file, read without loading it (two NCCLs cannot both be loaded into one
 * process to ask them): from the file name the soname links to ({@code libnccl.so.2 -> libnccl.so.2.28.3}), from
 * the pip wheel's metadata folder next to it ({@code site-packages/nvidia_nccl_cu13-2.28.9.dist-info} for
 * {@code site-packages/nvidia/nccl/lib/libnccl.so.2}), or from the {@code "NCCL version 2.28.9"} banner compiled
 * into the library. {@link LibrarySearch} uses it to prefer the newest of several.
 */
final class LibraryVersion {
    private LibraryVersion() {}

    private static final Pattern FILE_NAME = Pattern.compile("libnccl\\.so\\.(\\d+\\.\\d+\\.\\d+)");
    private static final Pattern DIST_INFO = Pattern.compile("nvidia_nccl_cu\\d+-(\\d+\\.\\d+\\.\\d+)\\.dist-info");
    private static final byte[] BANNER = "NCCL version ".getBytes(StandardCharsets.US_ASCII);

    /** "2.28.9", or empty when none of the three ways tells. */
    static Optional<String> ofNccl(Path file) {
        Path real;
        try {
            real = file.toRealPath();
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
        Matcher m = FILE_NAME.matcher(real.getFileName().toString());
        if (m.matches()) return Optional.of(m.group(1));
        Optional<String> wheel = fromDistInfo(real);
        if (wheel.isPresent()) return wheel;
        return fromBanner(real);
    }

    /** .../site-packages/nvidia/nccl/lib/libnccl.so.2: the newest nvidia_nccl_cu*-X.Y.Z.dist-info in site-packages. */
    private static Optional<String> fromDistInfo(Path real) {
        Path lib = real.getParent(), nccl = lib == null ? null : lib.getParent(), nvidia = nccl == null ? null : nccl.getParent();
        Path sitePackages = nvidia == null ? null : nvidia.getParent();
        if (sitePackages == null || !"nvidia".equals(String.valueOf(nvidia.getFileName()))) return Optional.empty();
        String best = null;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(sitePackages, "nvidia_nccl_cu*-*.dist-info")) {
            for (Path e : entries) {
                Matcher m = DIST_INFO.matcher(e.getFileName().toString());
                if (m.matches() && (best == null || compare(m.group(1), best) > 0)) best = m.group(1);
            }
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
        return Optional.ofNullable(best);
    }

    /** The digits after the first "NCCL version " in the file (read in 1 MiB pieces). */
    static Optional<String> fromBanner(Path file) {
        byte[] buf = new byte[1 << 20];
        int keep = 0;                                // bytes carried over from the previous piece
        try (InputStream in = Files.newInputStream(file)) {
            for (int n; (n = in.read(buf, keep, buf.length - keep)) > 0; ) {
                int end = keep + n;
                for (int i = 0; i + BANNER.length + 6 <= end; i++) {
                    if (startsWith(buf, i, BANNER)) {
                        int j = i + BANNER.length;
                        StringBuilder v = new StringBuilder();
                        while (j < end && (Character.isDigit(buf[j]) || buf[j] == '.')) v.append((char) buf[j++]);
                        if (v.toString().matches("\\d+\\.\\d+\\.\\d+")) return Optional.of(v.toString());
                    }
                }
                keep = Math.min(end, BANNER.length + 16);   // a banner cut at the piece's end is found in the next
                System.arraycopy(buf, end - keep, buf, 0, keep);
            }
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    private static boolean startsWith(byte[] buf, int at, byte[] prefix) {
        for (int k = 0; k < prefix.length; k++) if (buf[at + k] != prefix[k]) return false;
        return true;
    }

    /** Numeric comparison of dotted versions ("2.28.10" > "2.28.9"); a missing version is older than any. */
    static int compare(String a, String b) {
        if (a == null || b == null) return a == null ? (b == null ? 0 : -1) : 1;
        String[] x = a.split("\\."), y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            long p = i < x.length ? Long.parseLong(x[i]) : 0, q = i < y.length ? Long.parseLong(y[i]) : 0;
            if (p != q) return Long.compare(p, q);
        }
        return 0;
    }
}
