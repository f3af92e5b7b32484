package org.mpi2nccl.kernel.mpj;

import com.google.gson.JsonObject;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Everything the kernel hears from its rank engines, in one queue and in the order it came: messages on the
 * ranks' links, lines the launcher printed, and links that dropped (an event with neither message nor line).
 * One queue lets the code that waits for a cell's results see a rank's death and its last lines in order.
 */
final class EngineEvents {
    private final BlockingQueue<EngineEvent> queue = new LinkedBlockingQueue<>();
    /** Answers to completion requests: apart, so that asking never takes a cell's events (or a rank's death). */
    private final BlockingQueue<JsonObject> replies = new LinkedBlockingQueue<>();

    /** Starts one daemon thread per link that reads its messages until the link closes or breaks. */
    void readLinks(Map<Integer, EngineWire> wires) {
        for (Map.Entry<Integer, EngineWire> e : wires.entrySet()) {
            int rank = e.getKey();
            EngineWire w = e.getValue();
            Thread reader = new Thread(() -> readLink(rank, w), "rank-engine-link-" + rank);
            reader.setDaemon(true);
            reader.start();
        }
    }

    private void readLink(int rank, EngineWire w) {
        try {
            JsonObject m;
            while ((m = w.receive()) != null) {
                if ("completion".equals(EngineWire.str(m, "type"))) {
                    replies.add(m);
                } else {
                    queue.add(new EngineEvent(rank, m, null));
                }
            }
        } catch (IOException e) {
            // a broken link: the same as a closed one
        }
        queue.add(new EngineEvent(rank, null, null));
    }

    /** Moves the launcher's lines from {@code early} into this queue, on a daemon thread, until {@code stop}. */
    void forwardLines(BlockingQueue<EngineEvent> early, BooleanSupplier stop) {
        Thread lines = new Thread(() -> {
            try {
                while (!stop.getAsBoolean()) {
                    EngineEvent ev = early.poll(200, TimeUnit.MILLISECONDS);
                    if (ev != null) {
                        queue.add(ev);
                    }
                }
            } catch (InterruptedException ignored) {
                // closing
            }
        }, "rank-engine-lines");
        lines.setDaemon(true);
        lines.start();
    }

    /** The answer to completion request {@code req}, waiting until {@code deadlineNanos}; null if none came. */
    JsonObject reply(long req, long deadlineNanos) {
        try {
            while (true) {
                JsonObject m = replies.poll(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (m == null) {
                    return null;
                }
                if (m.has("req") && m.get("req").getAsLong() == req) {
                    return m;
                }
                // an answer that came after its request gave up: drop it
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The next event if one is there, else null. */
    EngineEvent poll() {
        return queue.poll();
    }

    /** The next event, waiting at most {@code millis}; null if none came. */
    EngineEvent poll(long millis) throws InterruptedException {
        return queue.poll(millis, TimeUnit.MILLISECONDS);
    }

    /** The next event, waiting until {@code deadlineNanos} (System.nanoTime); null if none came or interrupted. */
    EngineEvent pollUntil(long deadlineNanos) {
        try {
            return queue.poll(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
