package org.mpi2nccl.cli;

import java.util.Arrays;
import java.util.Collection;
import java.util.Objects;
import java.util.stream.Collectors;
import org.mpi2nccl.bench.SpeedupConfig;
import org.mpi2nccl.bench.SpeedupExperiment;
import picocli.CommandLine.IDefaultValueProvider;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The defaults of {@code mpi2nccl run}: this machine's preset experiment ({@link SpeedupExperiment#defaultConfig()},
 * the one lesson 05 runs), read through the same option declarations. It answers only where the preset differs
 * from the declared default (the CPU preset's smaller model and data); otherwise the field's own value stands.
 * Picocli asks while parsing {@code run}, so the other subcommands never look for GPUs.
 */
public final class MachineDefaults implements IDefaultValueProvider {
    private CommandSpec preset;
    private CommandSpec declared;

    @Override
    public String defaultValue(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option)) return null;
        if (preset == null) {
            preset = CommandSpec.forAnnotatedObject(SpeedupExperiment.defaultConfig());
            declared = CommandSpec.forAnnotatedObject(new SpeedupConfig());
        }
        OptionSpec mine = preset.findOption(option.longestName());
        if (mine == null) return null;
        String value = text(mine.getValue());
        return Objects.equals(value, text(declared.findOption(option.longestName()).getValue())) ? null : value;
    }

    /** An option's value as it is written on the command line: lists and arrays comma-separated. */
    static String text(Object value) {
        if (value == null) return null;
        if (value instanceof Collection<?> c) return c.stream().map(String::valueOf).collect(Collectors.joining(","));
        if (value instanceof int[] a) return Arrays.stream(a).mapToObj(String::valueOf).collect(Collectors.joining(","));
        return value.toString();
    }
}
