package org.mpi2nccl.launch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.mpi2nccl.launch.rank.RankFailureRecord;
import org.mpi2nccl.launch.rank.Wire;

/**
 * What a running job's processes said, line by line ({@link org.mpi2nccl.launch.rank.Wire}): the ranks' output,
 * their reports, how each rank ended (done, threw, its JVM died), MPJ's own lines, and the JVM start errors among
 * them. {@link RunningJob} feeds it every line and watches it; this object is also the lock (and the monitor
 * notified on every change of a rank's state) for all of it.
 */
final class JobRecords {
    final int[] statuses;
    final List<RankLine> lines = new ArrayList<>();
    final List<String> mpjLines = new ArrayList<>();
    final List<Map<String, Object>> reports = new ArrayList<>();
    final List<RankFailure> failures = new ArrayList<>();
    final RankDeaths deaths = new RankDeaths();
    final List<String> startErrors = new ArrayList<>();
    final StallReports stalls = new StallReports();
    private final List<Consumer<RankLine>> listeners;
    /** Set when the launcher stops the job: the ends of rank JVMs it kills are no deaths to report. */
    private boolean stopping;

    JobRecords(int ranks, List<Consumer<RankLine>> listeners) {
        this.statuses = new int[Math.max(ranks, 0)];
        Arrays.fill(statuses, JobResult.UNFINISHED);
        this.listeners = listeners;
    }

    /** One line from a process of the job: {@code stderrPipe} when it came by a stderr pipe. */
    void onRawLine(String raw, boolean stderrPipe) {
        Optional<Wire.Tagged> tagged = Wire.decode(raw);
        if (tagged.isEmpty() || tagged.get().rank() >= statuses.length) {
            synchronized (this) {
                mpjLines.add(raw);
                if (MpjSaid.isJvmStartError(raw)) {
                    startErrors.add(raw);
                    notifyAll();
                }
            }
            if (!MpjChatter.isChatter(raw)) deliver(new RankLine(-1, stderrPipe ? RankLine.Stream.STDERR
                    : RankLine.Stream.STDOUT, raw));
            return;
        }
        Wire.Tagged t = tagged.get();
        int rank = t.rank();
        switch (t.kind()) {
            case OUT -> {
                if (MpjChatter.isChatter(t.text())) return;   // MPJ's wrapper prints in the rank's JVM
                Map<String, Object> report = Report.parse(t.text());
                if (report != null && rank >= 0) {
                    Map<String, Object> withRank = new LinkedHashMap<>();
                    withRank.put("rank", (long) rank);
                    report.forEach(withRank::putIfAbsent);
                    synchronized (this) {
                        reports.add(withRank);
                    }
                } else {
                    deliver(new RankLine(rank, RankLine.Stream.STDOUT, t.text()));
                }
            }
            case ERR -> deliver(new RankLine(rank, RankLine.Stream.STDERR, t.text()));
            case DONE -> {
                synchronized (this) {
                    deaths.mainEnded(rank);
                    setStatus(rank, JobResult.FINISHED);
                }
            }
            case FAIL -> {
                RankFailureRecord f;
                try {
                    f = RankFailureRecord.fromJson(t.text());
                } catch (RuntimeException e) {
                    f = new RankFailureRecord("unknown", t.text(), "", "");
                }
                synchronized (this) {
                    deaths.mainEnded(rank);
                    failures.add(new RankFailure(rank, f.type(), f.message(), f.where(), f.trace()));
                    setStatus(rank, JobResult.FAILED);
                }
            }
            case EXITING -> {
                synchronized (this) {
                    deaths.exiting(rank, t.text());
                }
            }
            case WHERE -> {
                synchronized (this) {
                    if (rank >= 0) stalls.record(rank, t.text(), System.nanoTime());
                }
            }
            case ENDED -> {
                synchronized (this) {
                    if (rank >= 0 && statuses[rank] == JobResult.UNFINISHED && !stopping) {
                        deaths.ended(rank, parseStatus(t.text()));
                        setStatus(rank, JobResult.FAILED);
                    } else if (rank >= 0) {
                        deaths.endedAfterMain(rank);
                    }
                }
            }
        }
    }

    /** From now on the launcher stops the job's processes itself. */
    synchronized void stopping() {
        stopping = true;
    }

    private synchronized void setStatus(int rank, int status) {
        if (rank >= 0) statuses[rank] = status;
        notifyAll();
    }

    private static int parseStatus(String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Keeps the line and passes it to the job's listeners (on the calling thread, without the lock held). */
    void deliver(RankLine line) {
        synchronized (this) {
            lines.add(line);
        }
        for (Consumer<RankLine> l : listeners) {
            try {
                l.accept(line);
            } catch (RuntimeException e) {
                // a listener's bug must not take the job down; the line is in the result anyway
            }
        }
    }

    /** A stall warning whose round of reports is complete, delivered as an [mpj] line (call without the lock). */
    void deliverStallWarning() {
        String w;
        synchronized (this) {
            w = stalls.warning(System.nanoTime(), statuses);
        }
        if (w != null) deliver(new RankLine(-1, RankLine.Stream.STDERR, w));
    }

    /** A rank threw, died or could not start. */
    synchronized boolean anyFailed() {
        return !failures.isEmpty() || !startErrors.isEmpty()
                || Arrays.stream(statuses).anyMatch(s -> s == JobResult.FAILED);
    }

    synchronized boolean allReturned() {
        return Arrays.stream(statuses).allMatch(s -> s == JobResult.FINISHED);
    }

    /** Ranks whose JVM the daemon did not see end. */
    synchronized List<Integer> notEnded() {
        List<Integer> out = new ArrayList<>();
        for (int r = 0; r < statuses.length; r++) if (!deaths.hasEnded(r)) out.add(r);
        return out;
    }

    /**
     * Which ranks' JVMs stayed after main returned: those the daemon did not see end ({@code daemonReports}: it
     * reports ends), else "some ranks".
     */
    String lingeringNote(boolean daemonReports, java.time.Duration grace) {
        List<Integer> stayed = notEnded();
        String who = daemonReports && !stayed.isEmpty() ? "ranks " + stayed : "some ranks";
        return "warning: " + who + " returned from main without MPI.Finalize(): their JVMs did not end and were"
                + " stopped " + MpjSaid.human(grace) + " after the last main returned; end main with MPI.Finalize()";
    }
}
