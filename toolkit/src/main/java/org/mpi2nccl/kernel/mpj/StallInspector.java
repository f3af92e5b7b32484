package org.mpi2nccl.kernel.mpj;

import org.mpi2nccl.launch.StallReports;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Horovod's stall inspector for a {@code %%mpj} cell: when some ranks have finished the cell and others have not
 * for {@link RankEngines#stall()} (or no rank has finished and the ranks wait in different calls), it asks the
 * unfinished ranks where their cell thread is and writes one warning:
 * "ranks 0 and 2 wait in Allreduce (cell line 5) for 10 s; rank 1 finished the cell: a rank skipped a collective?".
 * The next look comes twice as late, and so on. It never stops a rank: the student decides (interrupt).
 *
 * <p>Driven by {@link CellCollector}'s loop: {@link #toAsk} says when to ask, {@link #answer} takes the ranks'
 * replies, {@link #warning} gives the warning once every rank asked has answered.
 */
final class StallInspector {
    private static final long ANSWER_WAIT = Duration.ofSeconds(2).toNanos();

    private final long stall;
    /** Set when an interrupt left ranks inside a communication call ({@link OutOfStep}); null otherwise. */
    private final String outOfStep;
    private final Set<Integer> finished = new TreeSet<>();
    private final Map<Integer, String> answers = new TreeMap<>();
    private final Map<Integer, Boolean> inCommunication = new TreeMap<>();
    private long anchor;
    private long interval;
    private long nextAt;
    private long askedAt;
    private Set<Integer> asked = Set.of();

    /** {@code stall}: zero or negative turns the inspector off. */
    StallInspector(Duration stall, long now) {
        this(stall, now, null);
    }

    /** {@code outOfStep}: which ranks an earlier interrupt stopped inside a call ({@link OutOfStep#note()}), or null. */
    StallInspector(Duration stall, long now, String outOfStep) {
        this.outOfStep = outOfStep;
        this.stall = stall.toNanos();
        this.anchor = now;
        this.interval = this.stall;
        this.nextAt = now + this.stall;
    }

    /** Rank {@code rank} sent its result; the first one restarts the clock (others now wait for the rest). */
    void finished(int rank, long now) {
        if (finished.isEmpty()) {
            anchor = now;
            interval = stall;
            nextAt = now + stall;
        }
        finished.add(rank);
    }

    /** The ranks to ask where they are now (empty: not yet). */
    Set<Integer> toAsk(long now, Set<Integer> pending) {
        if (stall <= 0 || askedAt != 0 || now < nextAt || pending.isEmpty()) return Set.of();
        askedAt = now;
        asked = new TreeSet<>(pending);
        answers.clear();
        inCommunication.clear();
        return asked;
    }

    void answer(int rank, String at, boolean communication) {
        if (askedAt != 0 && asked.contains(rank)) {
            answers.put(rank, at);
            inCommunication.put(rank, communication);
        }
    }

    /** The warning, once every rank asked (and still running) answered or after 2 s; null if none is due. */
    String warning(long now, Set<Integer> pending) {
        if (askedAt == 0) return null;
        Set<Integer> waitingFor = new TreeSet<>(asked);
        waitingFor.retainAll(pending);
        if (!answers.keySet().containsAll(waitingFor) && now - askedAt < ANSWER_WAIT) return null;
        askedAt = 0;
        interval *= 2;
        nextAt = now + interval;
        Map<String, List<Integer>> byPlace = new TreeMap<>();
        for (int r : waitingFor) {
            String at = answers.getOrDefault(r, "");
            byPlace.computeIfAbsent(at.isEmpty() ? "?" : at, k -> new ArrayList<>()).add(r);
        }
        if (byPlace.isEmpty()) return null;
        boolean allCommunicate = waitingFor.stream().allMatch(r -> inCommunication.getOrDefault(r, false));
        // A rank answers from a thread of its own even while its cell computes: one that says nothing is stopped
        // (a signal, a debugger) or its JVM hangs, and the others will wait for it in their next collective.
        List<Integer> silent = byPlace.getOrDefault("?", List.of());
        // No rank finished and every rank in the same place: a long collective or long work, not a stall; unless an
        // interrupt left messages of an earlier call on their way.
        boolean stale = outOfStep != null && allCommunicate;
        if (finished.isEmpty() && silent.isEmpty() && !stale && (byPlace.size() < 2 || !allCommunicate)) return null;
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, List<Integer>> e : byPlace.entrySet()) {
            if (e.getKey().equals("?")) continue;
            if (sb.length() > 0) sb.append("; ");
            boolean one = e.getValue().size() == 1;
            sb.append(StallReports.label(e.getValue())).append(one ? " waits" : " wait").append(" in ").append(e.getKey());
        }
        if (sb.length() > 0) sb.append(" for ").append(Math.round((now - anchor) / 1e9)).append(" s");
        if (!silent.isEmpty()) {
            if (sb.length() > 0) sb.append("; ");
            sb.append(StallReports.label(silent)).append(silent.size() == 1 ? " does" : " do").append(" not answer within ")
                    .append(ANSWER_WAIT / 1_000_000_000L).append(" s (stopped by a signal or a debugger, or its JVM hangs)");
        }
        if (!finished.isEmpty()) {
            sb.append("; ").append(StallReports.label(new ArrayList<>(finished)))
                    .append(" finished the cell: a rank skipped a collective?");
        } else if (stale && byPlace.size() < 2) {
            sb.append(", after an interrupt stopped the ranks inside a call (").append(outOfStep).append("): ")
                    .append(OutOfStep.ADVICE);
            return sb.toString();
        } else if (silent.isEmpty()) {
            sb.append(": the ranks called different collectives?");
        }
        return sb + " (interrupt the cell to stop it)";
    }
}
