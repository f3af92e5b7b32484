package org.mpi2nccl.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How every subcommand reports a mistake: one line on stderr, {@code mpi2nccl COMMAND: what is wrong}, and exit
 * code 2 for bad input (an option out of range, a missing or damaged data file, a GPU asked for where there is
 * none); exit code 1 for a failure while working. A student who typed {@code --epochs 0} needs the sentence, not
 * the 20 lines of Java stack below it: the stack trace is printed only with {@code --verbose}.
 * <p>Each command checks its options before it loads or starts anything and throws IllegalArgumentException
 * naming the option; this class turns that, and picocli's own parse errors, into the line.
 */
final class CommandErrors implements IExecutionExceptionHandler, IParameterExceptionHandler {
    static final int BAD_INPUT = 2;
    static final int FAILED = 1;

    /** The command line with these handlers installed. */
    static CommandLine install(CommandLine cli) {
        CommandErrors h = new CommandErrors();
        return cli.setExecutionExceptionHandler(h).setParameterExceptionHandler(h);
    }

    /** An option picocli could not parse or a check that threw ParameterException: the message, one line. */
    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        err.println(prefix(cmd) + oneLine(ex.getMessage()) + didYouMean(ex) + " (" + cmd.getCommandSpec().qualifiedName()
                + " --help lists the options)");
        if (verbose(cmd.getParseResult())) ex.printStackTrace(err);
        err.flush();
        return BAD_INPUT;
    }

    /** An exception out of a command's call(). */
    @Override
    public int handleExecutionException(Exception ex, CommandLine cmd, ParseResult parsed) {
        PrintWriter err = cmd.getErr();
        boolean input = isBadInput(ex);
        boolean verbose = verbose(parsed);
        String what = input ? message(ex) : ex.getClass().getSimpleName() + ": " + message(ex);
        err.println(prefix(cmd) + what + (verbose ? "" : input ? "" : " (--verbose prints the stack trace)"));
        if (verbose) ex.printStackTrace(err);
        err.flush();
        return input ? BAD_INPUT : FAILED;
    }

    /** Wrong settings, and data files that are missing or damaged: the user can fix these. */
    static boolean isBadInput(Throwable ex) {
        return ex instanceof IllegalArgumentException || ex instanceof UncheckedIOException || ex instanceof IOException;
    }

    /** picocli's own guesses for a misspelled subcommand or option (" Did you mean: run or mpjrun?"), or "". */
    static String didYouMean(ParameterException ex) {
        if (!(ex instanceof UnmatchedArgumentException u)) return "";
        List<String> guesses = u.getSuggestions();
        return guesses.isEmpty() ? "" : ". Did you mean: " + String.join(" or ", guesses) + "?";
    }

    private static String prefix(CommandLine cmd) {
        return cmd.getCommandSpec().qualifiedName() + ": ";
    }

    private static String message(Throwable ex) {
        String m = ex.getMessage();
        return m == null || m.isBlank() ? ex.getClass().getSimpleName() : oneLine(m);
    }

    private static String oneLine(String s) {
        return s.strip().replaceAll("\\s*\\R\\s*", " ");
    }

    /** True when --verbose was given, before or after the subcommand's name. */
    static boolean verbose(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption("--verbose")) return true;
        }
        return false;
    }
}
