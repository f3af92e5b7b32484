package org.mpi2nccl.launch.rank;

import com.google.gson.Gson;
import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * What a rank sends when its main method throws: the exception's class and message, the first stack frame
 * (where it was thrown) and the whole stack trace, as JSON on one {@code fail} line.
 */
public record RankFailureRecord(String type, String message, String where, String trace) {
    private static final Gson GSON = new Gson();

    public static RankFailureRecord of(Throwable t) {
        StringWriter full = new StringWriter();
        t.printStackTrace(new PrintWriter(full));
        StringBuilder trace = new StringBuilder();
        for (String line : full.toString().split("\\R")) {
            if (!isLauncherFrame(line)) trace.append(line).append('\n');
        }
        StackTraceElement[] frames = t.getStackTrace();
        String where = frames.length == 0 ? "" : frames[0].getClassName() + "." + frames[0].getMethodName()
                + "(" + frames[0].getFileName() + ":" + frames[0].getLineNumber() + ")";
        return new RankFailureRecord(t.getClass().getName(), t.getMessage(), where, trace.toString());
    }

    /** Frames of the launcher's boot, MPJ's wrapper and reflection, which say nothing about the program. */
    private static boolean isLauncherFrame(String line) {
        String s = line.trim();
        return s.startsWith("at ") && (s.contains("org.mpi2nccl.launch.rank.") || s.contains("runtime.daemon.Wrapper")
                || s.contains("jdk.internal.reflect.") || s.contains("java.lang.reflect.Method.invoke")
                || s.contains("java.lang.Thread.run"));
    }

    public String toJson() {
        return GSON.toJson(this);
    }

    public static RankFailureRecord fromJson(String json) {
        return GSON.fromJson(json, RankFailureRecord.class);
    }
}
