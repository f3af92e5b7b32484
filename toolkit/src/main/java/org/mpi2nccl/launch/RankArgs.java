package org.mpi2nccl.launch;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * A rank program's arguments as the launcher passes them, {@code key=value} words ({@code route=nccl steps=3}), parsed
 * by picocli into an options object whose {@code @Option} names are the keys: picocli reads the {@code =} as the
 * separator between an option and its value, so the keys need no dashes, and it converts and checks each value (an
 * int, a boolean). The options class names its program with {@code @Command(name = ...)}.
 * <pre>{@code
 * @Command(name = "MyRank")
 * static final class Args {
 *     @Option(names = "steps", defaultValue = "10") int steps;
 * }
 * Args a = RankArgs.parse(new Args(), List.of(MPI.Init(args)));
 * }</pre>
 */
public final class RankArgs {
    private RankArgs() {}

    /**
     * Fills {@code options} from {@code args}; throws IllegalArgumentException with one line that names the program and
     * the word at fault: a key it does not have (with the keys it has), a value of the wrong type, a key given twice.
     */
    public static <T> T parse(T options, List<String> args) {
        // a value may be a key's name too: op=max beside the key max
        CommandLine cli = new CommandLine(options).setAllowOptionsAsOptionParameters(true);
        String program = cli.getCommandSpec().name();
        try {
            cli.parseArgs(args.toArray(new String[0]));
            return options;
        } catch (UnmatchedArgumentException e) {
            // picocli's "did you mean" only guesses at words that start like option names; the keys are few: list them
            throw new IllegalArgumentException(program + ": unknown argument '" + e.getUnmatched().get(0) + "': its arguments are"
                    + " key=value with the keys " + String.join(", ", cli.getCommandSpec().optionsMap().keySet()));
        } catch (ParameterException e) {
            throw new IllegalArgumentException(program + ": " + e.getMessage().strip().replaceAll("\\s*\\R\\s*", " "));
        }
    }
}
