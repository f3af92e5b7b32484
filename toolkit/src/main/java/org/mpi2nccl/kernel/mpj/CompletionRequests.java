package org.mpi2nccl.kernel.mpj;

import com.google.gson.JsonObject;
import org.mpi2nccl.kernel.jshell.Completion;
import org.mpi2nccl.kernel.jshell.JShellEvaluator;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tab and Shift-Tab in a {@code %%mpj} cell, answered by rank 0's JShell: the variables and methods the cell can
 * use live there, not in the kernel. The kernel sends {@code complete} (what: complete or inspect, the code, the
 * cursor); rank 0 answers {@code completion} off its cell thread, so it answers while a cell runs too.
 *
 * <p>A rank engine makes JShell's source analysis (and its class index) only when first asked: ranks that are
 * never asked never pay for it.
 */
final class CompletionRequests {
    /** How long Tab or Shift-Tab waits for rank 0 (its first answer makes JShell's source analysis there). */
    static final Duration PATIENCE = Duration.ofSeconds(5);

    private final EngineWire rank0;
    private final EngineEvents events;
    private final AtomicLong nextRequest = new AtomicLong();

    CompletionRequests(EngineWire rank0, EngineEvents events) {
        this.rank0 = rank0;
        this.events = events;
    }

    /** The kernel's side: Tab at {@code at}; null when rank 0 has nothing or does not answer in time. */
    Completion complete(String code, int at) {
        JsonObject reply = ask("complete", code, at);
        if (reply == null || !reply.has("options")) {
            return null;
        }
        List<String> options = new ArrayList<>();
        reply.getAsJsonArray("options").forEach(o -> options.add(o.getAsString()));
        return new Completion(options, reply.get("anchor").getAsInt());
    }

    /** The kernel's side: Shift-Tab at {@code at}; null as for {@link #complete}. */
    String inspect(String code, int at) {
        JsonObject reply = ask("inspect", code, at);
        return reply == null || !reply.has("text") ? null : EngineWire.str(reply, "text");
    }

    private JsonObject ask(String what, String code, int at) {
        long req = nextRequest.incrementAndGet();
        JsonObject m = EngineWire.message("complete");
        m.addProperty("req", req);
        m.addProperty("what", what);
        m.addProperty("code", code);
        m.addProperty("at", at);
        try {
            rank0.send(m);
        } catch (IOException e) {
            return null; // rank 0 is gone: its link reader reports it to the next cell
        }
        return events.reply(req, System.nanoTime() + PATIENCE.toNanos());
    }

    /** The rank's side: the answer to {@code request}, from {@code evaluator} (null while it starts). */
    static JsonObject answer(JsonObject request, JShellEvaluator evaluator) {
        JsonObject reply = EngineWire.message("completion");
        reply.addProperty("req", request.get("req").getAsLong());
        if (evaluator == null) {
            return reply;
        }
        String code = EngineWire.str(request, "code");
        int at = request.get("at").getAsInt();
        try {
            if ("inspect".equals(EngineWire.str(request, "what"))) {
                String text = evaluator.inspect(code, at);
                if (text != null) {
                    reply.addProperty("text", text);
                }
            } else {
                Completion c = evaluator.complete(code, at);
                if (c != null) {
                    reply.add("options", EngineWire.jsonArray(c.options()));
                    reply.addProperty("anchor", c.anchor());
                }
            }
        } catch (RuntimeException e) {
            // JShell's analysis failed on this code: nothing to offer, as for code it does not understand
        }
        return reply;
    }
}
