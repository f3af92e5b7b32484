package org.mpi2nccl.kernel.mpj;

import org.mpi2nccl.launch.RankLine;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * The last lines each rank (and MPJ itself, rank -1) printed outside a cell, kept so that an error about a
 * rank can show what that rank said just before (a JVM crash, an MPJ exception, a CUDA message).
 */
final class RecentLines {
    private static final int PER_RANK = 30;
    private final Map<Integer, Deque<String>> lines = new HashMap<>();

    synchronized void add(RankLine line) {
        Deque<String> q = lines.computeIfAbsent(line.rank(), k -> new ArrayDeque<>());
        q.addLast(line.toString());
        while (q.size() > PER_RANK) {
            q.removeFirst();
        }
    }

    /** "\nlast lines of rank R:\n..." for each rank asked about, then MPJ's own; "" when there are none. */
    synchronized String about(Set<Integer> ranks) {
        StringBuilder sb = new StringBuilder();
        for (int r : ranks) {
            Deque<String> q = lines.get(r);
            if (q != null && !q.isEmpty()) {
                sb.append("\nlast lines of rank ").append(r).append(":\n").append(String.join("\n", q));
            }
        }
        Deque<String> mpj = lines.get(-1);
        if (mpj != null && !mpj.isEmpty()) {
            sb.append("\nlast lines of MPJ:\n").append(String.join("\n", mpj));
        }
        return sb.toString();
    }
}
