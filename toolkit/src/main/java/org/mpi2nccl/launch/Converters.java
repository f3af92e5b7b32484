package org.mpi2nccl.launch;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;

/** Option types the command line and the kernel's magics share (picocli converters): an MPJ device ({@code multicore}, {@code niodev}) and a duration. */
public final class Converters {
    private Converters() {}

    /** {@code multicore} or {@code niodev}. */
    public static final class MpjDeviceConverter implements ITypeConverter<MpjDevice> {
        @Override
        public MpjDevice convert(String value) {
            return MpjDevice.parse(value);
        }
    }

    /** {@code local} or {@code slurm}. */
    public static final class LauncherConverter implements ITypeConverter<org.mpi2nccl.launch.Launcher> {
        @Override
        public org.mpi2nccl.launch.Launcher convert(String value) {
            return org.mpi2nccl.launch.Launcher.parse(value);
        }
    }

    /** 90s, 5m, 1h, 500ms, plain seconds, or ISO-8601 (PT90S). */
    public static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return parseDuration(value);
        }
    }

    public static Duration parseDuration(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        try {
            if (v.startsWith("p")) return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
            if (v.endsWith("ms")) return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            if (v.endsWith("s")) return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
            if (v.endsWith("m")) return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
            if (v.endsWith("h")) return Duration.ofHours(Long.parseLong(v.substring(0, v.length() - 1)));
            return Duration.ofSeconds(Long.parseLong(v));
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new IllegalArgumentException("'" + value + "' is not a duration: use e.g. 90s, 5m, 500ms");
        }
    }
}
