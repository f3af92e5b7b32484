package org.mpi2nccl.parallel;

import java.util.Arrays;
import java.util.Map;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.Reduction;
import org.mpi2nccl.comm.Tensors;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.tensor.NDArray;

/**
 * Checks that every rank built the same model (names and shapes of its state) before anything is broadcast or
 * all-reduced: otherwise the ranks would exchange buffers of different sizes, which hangs or corrupts. The
 * check is two all-reduces of a few floats (max and min of a fingerprint: equal everywhere iff max == min),
 * so it works on any communicator and device, NCCL included.
 */
final class ModelFingerprint {
    private ModelFingerprint() {}

    static void check(Module model, Communicator comm) {
        float[] mine = of(model);
        var device = model.parameters().get(0).device();
        try (NDArray max = NDArray.of(device, mine.clone(), mine.length);
             NDArray min = NDArray.of(device, mine.clone(), mine.length)) {
            Tensors.allReduce(comm, max, Reduction.MAX);
            Tensors.allReduce(comm, min, Reduction.MIN);
            if (!Arrays.equals(max.toArray(), min.toArray())) {
                throw new IllegalStateException("the ranks built different models (parameter names or shapes differ): rank "
                        + comm.rank() + " has " + describe(model) + ". Build the same model on every rank (same code, same"
                        + " sizes); only the weights may differ, rank 0's are broadcast.");
            }
        }
    }

    /** Number of state entries, number of floats, and a 64-bit hash of "name shape" lines, in 16-bit pieces (exact as floats). */
    static float[] of(Module model) {
        long hash = 1125899906842597L;
        long floats = 0;
        Map<String, NDArray> state = model.state();
        for (Map.Entry<String, NDArray> e : state.entrySet()) {
            String line = e.getKey() + " " + Arrays.toString(e.getValue().shape()) + "\n";
            for (int i = 0; i < line.length(); i++) hash = 31 * hash + line.charAt(i);
            floats += e.getValue().size();
        }
        return new float[] {state.size(), floats & 0xFFFF, (floats >>> 16) & 0xFFFF, (floats >>> 32) & 0xFFFF,
                hash & 0xFFFF, (hash >>> 16) & 0xFFFF, (hash >>> 32) & 0xFFFF, (hash >>> 48) & 0xFFFF};
    }

    private static String describe(Module model) {
        StringBuilder b = new StringBuilder();
        Map<String, NDArray> state = model.state();
        b.append(state.size()).append(" state arrays (");
        int shown = 0;
        for (Map.Entry<String, NDArray> e : state.entrySet()) {
            if (shown++ == 6) {
                b.append(", ...");
                break;
            }
            if (shown > 1) b.append(", ");
            b.append(e.getKey()).append(' ').append(Arrays.toString(e.getValue().shape()));
        }
        return b.append(')').toString();
    }
}
