package org.mpi2nccl.comm.ring;

import org.mpi2nccl.comm.Collective;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Brings every rank's {@link RingTrace} together, so that one rank can draw the whole ring: each rank writes its
 * events as text lines, the ranks agree on the longest text, and an all-gather of the (padded) bytes gives every
 * rank all of them. Collective: every rank of {@code host} calls {@link #allGather} with its own trace.
 */
public final class TraceExchange {
    private static final String FIELDS = "rank,collective,seq,phase,step,segment,chunk,direction,peer,bytes,startNs,endNs";

    private TraceExchange() {
    }

    /** Every rank's events in one trace, ordered as {@link RingTrace#merge} orders them. */
    public static RingTrace allGather(RingTrace mine, Communicator host) {
        byte[] text = encode(mine.events()).getBytes(StandardCharsets.UTF_8);
        long[] longest = {text.length};
        host.allReduce(HostBuffer.of(longest), Reduction.MAX);
        byte[] padded = java.util.Arrays.copyOf(text, (int) longest[0]);
        byte[] all = new byte[padded.length * host.size()];
        if (padded.length > 0) {
            host.allGather(HostBuffer.of(padded), HostBuffer.of(all));
        }
        List<RingTrace> traces = new ArrayList<>();
        for (int r = 0; r < host.size(); r++) {
            String block = new String(all, r * padded.length, padded.length, StandardCharsets.UTF_8);
            traces.add(RingTrace.of(decode(block)));
        }
        return RingTrace.merge(traces);
    }

    /** One line per event, comma-separated, in the order of {@link #FIELDS}. */
    static String encode(List<RingTrace.Event> events) {
        StringBuilder s = new StringBuilder();
        for (RingTrace.Event e : events) {
            for (String part : new String[] {e.collective(), e.phase(), e.direction()}) {
                if (part.contains(",") || part.contains("\n")) {
                    throw new IllegalArgumentException("trace: a name with a comma or line break cannot be sent: '" + part + "'");
                }
            }
            s.append(e.rank()).append(',').append(e.collective()).append(',').append(e.seq()).append(',').append(e.phase())
                    .append(',').append(e.step()).append(',').append(e.segment()).append(',').append(e.chunk()).append(',')
                    .append(e.direction()).append(',').append(e.peer()).append(',').append(e.bytes()).append(',')
                    .append(e.startNs()).append(',').append(e.endNs()).append('\n');
        }
        return s.toString();
    }

    /** The events of {@link #encode}'s text; trailing zero bytes (padding) are ignored. */
    static List<RingTrace.Event> decode(String text) {
        List<RingTrace.Event> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            String l = line.replace("\0", "").strip();
            if (l.isEmpty()) {
                continue;
            }
            String[] f = l.split(",", -1);
            if (f.length != 12) {
                throw new IllegalArgumentException("trace: a line needs 12 fields (" + FIELDS + "), got " + f.length + ": " + l);
            }
            out.add(new RingTrace.Event(Integer.parseInt(f[0]), f[1], Long.parseLong(f[2]), f[3], Integer.parseInt(f[4]),
                    Integer.parseInt(f[5]), Integer.parseInt(f[6]), f[7], Integer.parseInt(f[8]), Long.parseLong(f[9]),
                    Long.parseLong(f[10]), Long.parseLong(f[11])));
        }
        return out;
    }
}
