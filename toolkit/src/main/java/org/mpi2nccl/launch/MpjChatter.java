package org.mpi2nccl.launch;

import java.util.regex.Pattern;

/**
 * Lines MPJ Express prints on every niodev run ("MPJ Express (0.44) is started in the cluster configuration
 * with niodev", "Starting process <0> on <host>", "Stopping Process <0> on <host>"). The launcher keeps them
 * out of the live stream (they say nothing a student needs, and arrive interleaved with rank output);
 * anything else MPJ prints (its errors) is shown as an {@code [mpj]} line.
 */
final class MpjChatter {
    private static final Pattern CHATTER = Pattern.compile(
            "MPJ Express \\([0-9.]+\\) is started in the .*"
            + "|(Starting|Stopping) [Pp]rocess <\\d+> on <[^>]*>");

    private MpjChatter() {}

    static boolean isChatter(String line) {
        return CHATTER.matcher(line.trim()).matches();
    }
}
