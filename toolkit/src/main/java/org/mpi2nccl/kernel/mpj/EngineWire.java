package org.mpi2nccl.kernel.mpj;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import org.mpi2nccl.kernel.jshell.CellError;
import org.mpi2nccl.kernel.jshell.SplitCell;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The link between the kernel and one rank engine: a Unix socket ({@link EngineLink}) carrying one JSON object per line.
 *
 * <p>Kernel to rank: {@code welcome} (local rank, class path, output folder), {@code exec} (cell id, code and its
 * snippets: the kernel splits cells; how much output the rank may send), {@code interrupt}, {@code where},
 * {@code classpath}, {@code complete} (Tab or Shift-Tab in a {@code %%mpj} cell, sent to rank 0), {@code shutdown}.
 * Rank to kernel: {@code hello} (token, rank, size, pid, host), {@code ready}, {@code stream} / {@code display} /
 * {@code update} (outputs of a running cell), {@code note} (where the output past the rank's share went),
 * {@code where} (the stall inspector's answer), {@code result} (the cell's value or error) and {@code completion}
 * (the answer to a {@code complete}). One socket per rank keeps each rank's outputs in the order they were made, and
 * a cell's outputs always arrive before its result.
 */
public final class EngineWire implements AutoCloseable {
    private static final Gson GSON = new Gson();

    private final SocketChannel channel;
    private final BufferedReader in;
    private final BufferedWriter out;

    public EngineWire(SocketChannel channel) {
        this.channel = channel;
        this.in = new BufferedReader(new InputStreamReader(new ChannelIn(channel), StandardCharsets.UTF_8));
        this.out = new BufferedWriter(new OutputStreamWriter(new ChannelOut(channel), StandardCharsets.UTF_8));
    }

    /** Sends one message (thread-safe: outputs of several threads of a cell may be sent at once). */
    public synchronized void send(JsonObject message) throws IOException {
        out.write(GSON.toJson(message));
        out.write('\n');
        out.flush();
    }

    /** The next message, or null when the other side has closed the link. */
    public JsonObject receive() throws IOException {
        String line = in.readLine();
        if (line == null) {
            return null;
        }
        try {
            return GSON.fromJson(line, JsonObject.class);
        } catch (JsonParseException ex) {
            throw new IOException("garbled message from the other side of the engine link: " + ex.getMessage());
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    // The channel's own reads and writes, not Channels.newInputStream/newOutputStream: on Java 17 those lock the
    // channel's blocking lock for a whole read, so a send would wait for the next message to arrive.
    private static final class ChannelIn extends InputStream {
        private final SocketChannel channel;

        ChannelIn(SocketChannel channel) {
            this.channel = channel;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return len == 0 ? 0 : channel.read(ByteBuffer.wrap(b, off, len));
        }
    }

    private static final class ChannelOut extends OutputStream {
        private final SocketChannel channel;

        ChannelOut(SocketChannel channel) {
            this.channel = channel;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ByteBuffer buf = ByteBuffer.wrap(b, off, len);
            while (buf.hasRemaining()) channel.write(buf);
        }
    }

    /** A message of the given type. */
    public static JsonObject message(String type) {
        JsonObject m = new JsonObject();
        m.addProperty("type", type);
        return m;
    }

    /** An output bundle as JSON: its data, metadata and display id survive the trip. */
    public static JsonObject toJson(DisplayData data) {
        return GSON.toJsonTree(data).getAsJsonObject();
    }

    public static DisplayData displayData(JsonObject json) {
        return GSON.fromJson(json, DisplayData.class);
    }

    /** An {@code exec} message for a cell the kernel has split into snippets. */
    public static JsonObject exec(long id, SplitCell cell) {
        JsonObject m = message("exec");
        m.addProperty("id", id);
        m.addProperty("code", cell.cell());
        m.addProperty("firstLine", cell.firstLine());
        JsonArray parts = new JsonArray();
        for (SplitCell.Part p : cell.parts()) {
            JsonObject part = new JsonObject();
            part.addProperty("offset", p.offset());
            part.addProperty("source", p.source());
            parts.add(part);
        }
        m.add("parts", parts);
        return m;
    }

    /** The cell of an {@code exec} message. */
    public static SplitCell splitCell(JsonObject exec) {
        List<SplitCell.Part> parts = new ArrayList<>();
        for (JsonElement e : exec.getAsJsonArray("parts")) {
            JsonObject p = e.getAsJsonObject();
            parts.add(new SplitCell.Part(p.get("offset").getAsInt(), p.get("source").getAsString()));
        }
        int firstLine = exec.has("firstLine") ? exec.get("firstLine").getAsInt() : 1;
        return new SplitCell(exec.get("code").getAsString(), firstLine, parts);
    }

    /** A cell's error as the rank sent it. */
    static CellError cellError(JsonObject e) {
        List<String> tb = new ArrayList<>();
        for (JsonElement l : e.getAsJsonArray("traceback")) {
            tb.add(l.getAsString());
        }
        CellError.Kind kind;
        try {
            kind = CellError.Kind.valueOf(str(e, "kind"));
        } catch (IllegalArgumentException ex) {
            kind = CellError.Kind.EXCEPTION;
        }
        return new CellError(kind, str(e, "name"), str(e, "message"), tb);
    }

    /** A string field, "" when absent. */
    static String str(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? "" : e.getAsString();
    }

    static JsonArray jsonArray(List<String> items) {
        JsonArray a = new JsonArray();
        items.forEach(a::add);
        return a;
    }
}
