package org.mpi2nccl.launch;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.ToNumberPolicy;
import com.google.gson.reflect.TypeToken;
import java.lang.reflect.Type;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A rank's side channel to the launcher: {@code Report.emit(Map.of("step", 3, "loss", 0.41))} inside a
 * rank program sends one record, which the launcher collects in {@link JobResult#reports()} (with the rank
 * added) and {@link JobResult#reportTable()}.
 *
 * <p>The record travels as one marked line of JSON on the rank's stdout, so it takes the same path as the
 * rank's output and works across hosts (niodev daemons forward it). Run outside the launcher, the line is
 * simply printed.
 */
public final class Report {
    /** Marks a report line; the launcher removes it from the rank's ordinary output. */
    static final String MARK = "@@mpj-report ";

    private static final Gson OUT = new GsonBuilder().serializeSpecialFloatingPointValues().create();
    private static final Gson IN = new GsonBuilder().serializeSpecialFloatingPointValues()
            .setObjectToNumberStrategy(ToNumberPolicy.LONG_OR_DOUBLE).create();
    private static final Type MAP = new TypeToken<LinkedHashMap<String, Object>>() {}.getType();

    private Report() {}

    /** Sends {@code record} (values: numbers, strings, booleans) to the launcher. */
    public static void emit(Map<String, ?> record) {
        String json = OUT.toJson(record);
        synchronized (System.out) {
            System.out.println(MARK + json);
        }
    }

    /** The record in a report line's text, or null when the text is not a report. */
    static Map<String, Object> parse(String text) {
        if (!text.startsWith(MARK)) return null;
        try {
            return IN.fromJson(text.substring(MARK.length()), MAP);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
