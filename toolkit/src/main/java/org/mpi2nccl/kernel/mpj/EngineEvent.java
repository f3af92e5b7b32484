package org.mpi2nccl.kernel.mpj;

import com.google.gson.JsonObject;
import org.mpi2nccl.launch.RankLine;

/**
 * What the kernel hears from a rank engine, in one queue: a message on its link ({@code message}), a line the
 * launcher caught from its process ({@code line}), or, when both are null, that its link dropped.
 */
record EngineEvent(int rank, JsonObject message, RankLine line) {
}
