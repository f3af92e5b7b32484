package org.mpi2nccl.launch;

import java.util.List;
import java.util.stream.Collectors;

/**
 * How a job that has ended is reported to its caller: the exception that says why it failed, or null when every
 * rank's main returned. In this order: a rank threw (with a hint when a JNI library met MPJ's multicore device),
 * the timeout, a stop, no MPJ daemon to start the ranks, ranks whose process ended before their main returned.
 */
final class JobEnding {
    private JobEnding() {
    }

    /**
     * @param failed  the ranks' failures as they reported them
     * @param mpjSaid what MPJ itself printed, its chatter left out
     * @param main    the job's main process (the multicore JVM or MPJ's starter)
     * @param daemon  the MPJ daemon the job started, or null
     * @param stallReport the stall inspector's last warning, or null
     */
    static RuntimeException why(JobBuilder spec, JobResult result, List<RankFailure> failed, boolean timedOut,
                                boolean stopped, List<String> mpjSaid, Process main, MpjDaemon daemon,
                                String stallReport) {
        List<Integer> unfinished = result.unfinishedRanks();
        String job = spec.ranks + "-rank " + spec.device + " job " + spec.mainClass;
        if (!failed.isEmpty()) {
            String why = failed.stream().map(RankFailure::summary).collect(Collectors.joining("; "));
            String hint = failed.stream().anyMatch(RankFailure::isJniLoadedByAnotherRank)
                    ? (spec.device == MpjDevice.MULTICORE
                        ? ". A JNI library (JCuda, JavaCPP) loads in one class loader per JVM and multicore runs"
                          + " every rank in one JVM: use niodev for GPU jobs (device(NIODEV), --device niodev)"
                        : ". A JNI library was loaded twice in one JVM")
                    : "";
            if (hint.isEmpty() && failed.stream().allMatch(f -> RankFailure.DIED.equals(f.type()))) hint = jvmErrors(mpjSaid);
            return new RankFailedException(job + " failed: " + why
                    + (unfinished.isEmpty() ? "" : "; stopped ranks " + unfinished) + hint, result, failed);
        } else if (timedOut) {
            return new JobTimeoutException(job + " timed out after " + MpjSaid.human(spec.timeout)
                    + ": ranks " + unfinished + " had not finished (all stopped); raise the timeout or look for a"
                    + " rank that waits for a message nobody sends"
                    + (stallReport == null ? "" : ". Last " + stallReport) + MpjSaid.lastWords(mpjSaid), result, unfinished,
                    spec.timeout);
        } else if (stopped) {
            return new MpjJobException(job + " was stopped: ranks " + unfinished
                    + " had not finished", result, unfinished);
        } else if (!unfinished.isEmpty() && SlurmStep.refused(mpjSaid) != null) {
            return new MpjLaunchException(SlurmStep.refused(mpjSaid));
        } else if (MpjSaid.noDaemon(mpjSaid) != null) {
            return new MpjLaunchException(MpjSaid.noDaemon(mpjSaid));
        } else if (!unfinished.isEmpty()) {
            String said = MpjSaid.lastWords(mpjSaid);
            String which = daemon != null && !daemon.isAlive() && main.isAlive() ? "the MPJ daemon" : "the job's JVM";
            List<RankFailure> lost = unfinished.stream().map(r -> new RankFailure(r, "process ended",
                    "rank " + r + " ended before its main returned", "", "")).toList();
            return new RankFailedException(job + " failed: ranks " + unfinished
                    + " ended before main returned (" + which + " exited" + exitCode(main) + "; a rank called"
                    + " System.exit, crashed or was killed)" + said, result, lost);
        } else {
            return null;
        }
    }


    /**
     * A rank JVM that died of an Error before the toolkit could tag its words (a heap of a few MiB: the JVM fails in
     * its own threads) leaves them only among MPJ's lines: "; its JVM said: java.lang.OutOfMemoryError ...", with the
     * fix for the errors that have one; "" when MPJ printed no Error.
     */
    static String jvmErrors(List<String> mpjSaid) {
        List<String> errors = mpjSaid.stream().filter(l -> l.matches(".*java\\.lang\\.\\w+Error.*")).map(String::strip)
                .distinct().limit(2).toList();
        if (errors.isEmpty()) return "";
        String fix = errors.stream().anyMatch(l -> l.contains("OutOfMemoryError"))
                ? ": a rank's heap is too small, give the ranks more (--jvm-arg=-Xmx1g, JobBuilder.jvmArgs)"
                : errors.stream().anyMatch(l -> l.contains("StackOverflowError"))
                ? ": a rank's stack is too small or its recursion endless (--jvm-arg=-Xss8m)" : "";
        return ". A rank JVM said: " + String.join(" | ", errors) + fix;
    }

    private static String exitCode(Process main) {
        return main.isAlive() ? "" : " with status " + main.exitValue();
    }

    /** A rank JVM that could not start (its own words, each said once): the options given to the rank JVMs. */
    static MpjLaunchException couldNotStart(List<String> startErrors) {
        return new MpjLaunchException("a rank JVM could not start: " + String.join(" | ", startErrors.stream().distinct().toList())
                + ": check the rank JVM options (jvmArgs, --jvm-arg)");
    }
}
