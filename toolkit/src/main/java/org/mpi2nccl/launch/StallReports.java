package org.mpi2nccl.launch;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The launcher's half of the stall inspector ({@link org.mpi2nccl.launch.rank.StallReporter} is the ranks'): the
 * ranks' {@code where} records, put together into one warning once they stop coming for a moment (the ranks of one
 * stall report within about a second of each other): "ranks 0 and 2 wait in Barrier (at Sum.main(Sum.java:12))
 * for 10 s; rank 1 returned from main: a rank skipped a collective?". The last one goes into the timeout's message.
 * Not thread-safe: {@link JobRecords} holds its lock.
 */
public final class StallReports {
    /** Records of one round come within this of each other. */
    static final long QUIET_NANOS = 700_000_000L;

    private final Map<Integer, String> places = new TreeMap<>();
    private final Map<Integer, Long> seconds = new TreeMap<>();
    private long lastRecordAt;
    private boolean fresh;
    private String last;

    /** A {@code where} record of {@code rank}: {@code SECONDS|PLACE}. */
    void record(int rank, String text, long now) {
        int bar = text.indexOf('|');
        if (bar < 0) return;
        try {
            seconds.put(rank, Long.parseLong(text.substring(0, bar)));
        } catch (NumberFormatException e) {
            return;
        }
        places.put(rank, text.substring(bar + 1));
        lastRecordAt = now;
        fresh = true;
    }

    /** The warning once a round of records is complete, else null. {@code statuses}: the ranks' states. */
    String warning(long now, int[] statuses) {
        if (!fresh || now - lastRecordAt < QUIET_NANOS) return null;
        fresh = false;
        Map<String, List<Integer>> byPlace = new TreeMap<>();
        long longest = 0;
        for (Map.Entry<Integer, String> e : places.entrySet()) {
            if (statuses[e.getKey()] != JobResult.UNFINISHED) continue;
            byPlace.computeIfAbsent(e.getValue(), k -> new ArrayList<>()).add(e.getKey());
            longest = Math.max(longest, seconds.get(e.getKey()));
        }
        if (byPlace.isEmpty()) return null;
        StringBuilder sb = new StringBuilder("stall: ");
        for (Map.Entry<String, List<Integer>> e : byPlace.entrySet()) {
            if (sb.length() > "stall: ".length()) sb.append("; ");
            sb.append(label(e.getValue())).append(e.getValue().size() == 1 ? " waits in " : " wait in ").append(e.getKey());
        }
        sb.append(" for ").append(longest).append(" s");
        List<Integer> returned = new ArrayList<>();
        for (int r = 0; r < statuses.length; r++) if (statuses[r] == JobResult.FINISHED) returned.add(r);
        if (!returned.isEmpty()) {
            sb.append("; ").append(label(returned)).append(" returned from main: a rank skipped a collective?");
        } else if (byPlace.size() > 1) {
            sb.append(": the ranks called different collectives?");
        } else {
            sb.append(": a rank waits for a message nobody sends, or the others are still working");
        }
        last = sb.toString();
        return last;
    }

    /** The last warning, or null. */
    String last() {
        return last;
    }

    /** "rank 1", "ranks 0 and 2", "ranks 0, 2 and 3": also the kernel's stall warnings name ranks this way. */
    public static String label(List<Integer> ranks) {
        if (ranks.size() == 1) return "rank " + ranks.get(0);
        StringBuilder sb = new StringBuilder("ranks ");
        for (int i = 0; i < ranks.size(); i++) {
            sb.append(i == 0 ? "" : i == ranks.size() - 1 ? " and " : ", ").append(ranks.get(i));
        }
        return sb.toString();
    }
}
