package org.mpi2nccl.launch;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * What a job produced: each rank's exit status, the lines it printed (tagged with the rank), the records
 * it sent with {@link Report#emit}, and how long the job took (from launch to the last rank's end,
 * JVM and daemon start included).
 */
public final class JobResult {
    /** Exit status of a rank whose main returned. */
    public static final int FINISHED = 0;
    /** Exit status of a rank whose main threw. */
    public static final int FAILED = 1;
    /** Exit status of a rank that had not finished when the job ended (stopped, timed out, JVM died). */
    public static final int UNFINISHED = -1;

    private final MpjDevice device;
    private final int[] statuses;
    private final List<RankLine> lines;
    private final List<RankFailure> failures;
    private final List<Map<String, Object>> reports;
    private final Duration elapsed;

    JobResult(MpjDevice device, int[] statuses, List<RankLine> lines, List<RankFailure> failures,
              List<Map<String, Object>> reports, Duration elapsed) {
        this.device = device;
        this.statuses = statuses.clone();
        this.lines = List.copyOf(lines);
        this.failures = List.copyOf(failures);
        this.reports = reports.stream().map(r -> Collections.unmodifiableMap(new LinkedHashMap<>(r))).toList();
        this.elapsed = elapsed;
    }

    public MpjDevice device() {
        return device;
    }

    public int ranks() {
        return statuses.length;
    }

    /** {@link #FINISHED}, {@link #FAILED} or {@link #UNFINISHED}. */
    public int exitStatus(int rank) {
        return statuses[rank];
    }

    public List<Integer> exitStatuses() {
        return java.util.Arrays.stream(statuses).boxed().toList();
    }

    /** True when every rank's main returned. */
    public boolean succeeded() {
        return java.util.Arrays.stream(statuses).allMatch(s -> s == FINISHED);
    }

    /** Ranks whose main had not returned or thrown when the job ended. */
    public List<Integer> unfinishedRanks() {
        List<Integer> out = new ArrayList<>();
        for (int r = 0; r < statuses.length; r++) if (statuses[r] == UNFINISHED) out.add(r);
        return out;
    }

    /** All lines in arrival order; rank -1 marks lines from MPJ Express or the JVM. */
    public List<RankLine> lines() {
        return lines;
    }

    /** The lines of one rank, in order. */
    public List<RankLine> lines(int rank) {
        return lines.stream().filter(l -> l.rank() == rank).toList();
    }

    /** One rank's stdout, one string per line (report lines removed). */
    public List<String> stdout(int rank) {
        return lines.stream().filter(l -> l.rank() == rank && !l.isStderr()).map(RankLine::text).toList();
    }

    public List<RankFailure> failures() {
        return failures;
    }

    /** Every record ranks sent with {@link Report#emit}, in arrival order, each with a "rank" entry first. */
    public List<Map<String, Object>> reports() {
        return reports;
    }

    /** The reports as a table: a column per key (rank first), numbers as long or double columns. */
    public Table reportTable() {
        Set<String> keys = new LinkedHashSet<>();
        keys.add("rank");
        reports.forEach(r -> keys.addAll(r.keySet()));
        Table table = Table.create("reports");
        for (String key : keys) {
            List<Object> values = reports.stream().map(r -> r.get(key)).collect(Collectors.toList());
            table.addColumns(column(key, values));
        }
        return table;
    }

    private static Column<?> column(String name, List<Object> values) {
        List<Object> present = values.stream().filter(v -> v != null).toList();
        if (!present.isEmpty() && present.stream().allMatch(v -> v instanceof Long || v instanceof Integer)) {
            LongColumn c = LongColumn.create(name);
            values.forEach(v -> { if (v == null) c.appendMissing(); else c.append(((Number) v).longValue()); });
            return c;
        }
        if (!present.isEmpty() && present.stream().allMatch(v -> v instanceof Number)) {
            DoubleColumn c = DoubleColumn.create(name);
            values.forEach(v -> { if (v == null) c.appendMissing(); else c.append(((Number) v).doubleValue()); });
            return c;
        }
        if (!present.isEmpty() && present.stream().allMatch(v -> v instanceof Boolean)) {
            BooleanColumn c = BooleanColumn.create(name);
            values.forEach(v -> { if (v == null) c.appendMissing(); else c.append((Boolean) v); });
            return c;
        }
        StringColumn c = StringColumn.create(name);
        values.forEach(v -> { if (v == null) c.appendMissing(); else c.append(String.valueOf(v)); });
        return c;
    }

    /** From launch until the job ended. */
    public Duration elapsed() {
        return elapsed;
    }

    @Override
    public String toString() {
        return "JobResult[" + device + ", " + statuses.length + " ranks, statuses " + exitStatuses()
                + ", " + lines.size() + " lines, " + reports.size() + " reports, " + elapsed.toMillis() + " ms]";
    }
}
