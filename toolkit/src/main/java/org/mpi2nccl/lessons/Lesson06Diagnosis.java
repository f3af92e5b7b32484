package org.mpi2nccl.lessons;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpi2nccl.comm.ring.CpuClique;
import org.mpi2nccl.lessons.Lesson06.Cause;

/**
 * Lesson 06's diagnosis exercise: the outputs of failing jobs, each labelled A, B, ... without its cause, and the
 * check of the student's diagnoses. Most outputs are made live on this machine (the fault runs of {@link Lesson06}
 * and a CPU clique whose ranks each made their own id); the NCCL ones are RECORDED on the GPU machine. Each job
 * keeps the line that gives its cause away (its clue), which the check quotes when a diagnosis is wrong.
 */
public final class Lesson06Diagnosis {
    private final Map<String, Job> jobs;
    private final List<Lesson06.Fault> faults;

    /** One failing job's output. {@code clue} finds the line that shows the cause. */
    record Job(String label, String source, String output, Cause cause, Pattern clue) {
        /** The clue's line in the output, shortened around the match; the first line when the clue is not found. */
        String clueLine() {
            for (String line : output.split("\n")) {
                Matcher m = clue.matcher(line);
                if (m.find()) {
                    int from = Math.max(0, m.start() - 80);
                    int to = Math.min(line.length(), m.end() + 80);
                    return (from > 0 ? "..." : "") + line.substring(from, to).trim() + (to < line.length() ? "..." : "");
                }
            }
            String first = output.split("\n")[0];
            return first.length() > 200 ? first.substring(0, 200) + "..." : first;
        }
    }

    Lesson06Diagnosis(Map<String, Job> jobs, List<Lesson06.Fault> faults) {
        this.jobs = jobs;
        this.faults = faults;
    }

    /**
     * Runs the live faults, one 2-rank job each (the skipped collective waits out {@link Lesson06#TIMEOUT}), and
     * reads the recorded NCCL outputs.
     */
    static Lesson06Diagnosis make() throws IOException {
        Lesson06.Fault skip = Lesson06.runFault("skip");
        Lesson06.Fault crash = Lesson06.runFault("crash");
        Lesson06.Fault mismatch = Lesson06.runFault("mismatch");
        String live = "live: a 2-rank MPJ job, run just now on this machine";
        Map<String, Job> jobs = new LinkedHashMap<>();
        add(jobs, "A", "a 2-GPU training job, " + Recorded.DATA_PARALLEL.source("nccl-bad-ifname.txt"),
                recorded(Recorded.DATA_PARALLEL, "nccl-bad-ifname.txt", null, 14), Cause.NETWORK_INTERFACE,
                "no socket interface found|NCCL_SOCKET_IFNAME set by environment");
        add(jobs, "B", live, skip.error(), Cause.SKIPPED_COLLECTIVE, "did not finish within");
        add(jobs, "C", "live: 2 ranks of this notebook's JVM joining a CPU clique", differentIds(), Cause.DIFFERENT_IDS,
                "never joined with this id");
        add(jobs, "D", live, crash.error(), Cause.RANK_CRASHED, "crashed at training step \\d+");
        add(jobs, "E", "the NCCL tests, " + Recorded.GPU_TESTS.source("junit.txt"),
                recorded(Recorded.GPU_TESTS, "junit.txt", "CollectiveMismatchException", 2), Cause.MISMATCHED_CALLS,
                "collective mismatch");
        add(jobs, "F", live, mismatch.error(), Cause.MISMATCHED_CALLS, "collective mismatch");
        add(jobs, "G", "the NCCL tests, " + Recorded.GPU_TESTS.source("junit.txt"),
                recorded(Recorded.GPU_TESTS, "junit.txt", "waiting for the GPU to finish", 1), Cause.SKIPPED_COLLECTIVE,
                "did not finish within");
        return new Lesson06Diagnosis(jobs, List.of(mismatch, skip, crash));
    }

    private static void add(Map<String, Job> jobs, String label, String source, String output, Cause cause, String clue) {
        if (output != null) {
            jobs.put(label, new Job(label, source, output, cause, Pattern.compile(clue)));
        }
    }

    /** Lines of a recorded file ({@code containing}: only lines with it), at most {@code max}; null if absent. */
    private static String recorded(Recorded set, String rel, String containing, int max) throws IOException {
        Path f = set.file(rel);
        if (f == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (String l : Files.readAllLines(f)) {
            if ((containing == null || l.contains(containing)) && out.size() < max) {
                out.add(l.length() > 600 ? l.substring(0, 600) + " ..." : l);
            }
        }
        return String.join("\n", out);
    }

    /** Two ranks, each passing initRank an id it made itself: what each rank reports. */
    static String differentIds() {
        CpuClique clique = CpuClique.withTimeout(Duration.ofSeconds(2));
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> ranks = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                int rank = r;
                ranks.add(pool.submit(() -> clique.initRank(2, clique.uniqueId(), rank)));
            }
            StringBuilder s = new StringBuilder();
            for (int r = 0; r < 2; r++) {
                try {
                    ranks.get(r).get(30, TimeUnit.SECONDS);
                    s.append("[rank ").append(r).append("] joined (the fault did not show)\n");
                } catch (java.util.concurrent.ExecutionException e) {
                    s.append("[rank ").append(r).append("] ").append(e.getCause().getClass().getName()).append(": ")
                            .append(e.getCause().getMessage()).append('\n');
                } catch (Exception e) {
                    s.append("[rank ").append(r).append("] ").append(e).append('\n');
                }
            }
            return s.toString().trim();
        } finally {
            pool.shutdownNow();
        }
    }

    /** The outputs, one block per label, as a student reads them. */
    public String show() {
        StringBuilder s = new StringBuilder();
        jobs.values().forEach(j -> s.append("=== ").append(j.label()).append(" (").append(j.source()).append(")\n")
                .append(j.output()).append("\n\n"));
        return s.toString();
    }

    /** The labels, in order. */
    public List<String> labels() {
        return new ArrayList<>(jobs.keySet());
    }

    /** The live fault runs (mismatch, skip, crash), for the table and chart of how long each took. */
    public List<Lesson06.Fault> faults() {
        return faults;
    }

    /** Checks a diagnosis per label; every wrong one is explained with the clue of its output. */
    public Check check(Map<String, Cause> answers) {
        List<String> wrong = new ArrayList<>();
        int right = 0;
        for (Job j : jobs.values()) {
            Cause said = answers == null ? null : answers.get(j.label());
            if (said == j.cause()) {
                right++;
            } else if (said == null) {
                wrong.add(j.label() + ": no answer yet.");
            } else {
                wrong.add(j.label() + ": you said " + said + ". The clue is \"" + j.clueLine() + "\": " + j.cause().sign()
                        + ". " + said + " would look different: " + said.sign() + ".");
            }
        }
        String title = right + " of " + jobs.size() + " outputs diagnosed";
        if (wrong.isEmpty()) {
            return Check.right(title, "every cause named from its clue. The order to read a failed job in: the first"
                    + " rank that failed and its first line; then whether it is a timeout (who never came), a mismatch"
                    + " (the ranks' calls differ), a crash (one rank's own exception) or an NCCL warning.");
        }
        return Check.wrong(title, String.join("\n", wrong));
    }
}
