package org.mpi2nccl.data;

import java.util.Iterator;
import java.util.NoSuchElementException;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * Batches of a {@link Dataset} in the order of a {@link Sampler}, copied to a device: gathered on the host,
 * then one host-to-device copy per array. Batches belong to the caller (close them, or open an
 * {@code ArrayScope} per step).
 */
public final class DataLoader {
    private final Dataset dataset;
    private final int batchSize;
    private final Sampler sampler;
    private final boolean dropLast;
    private final Device device;

    /** Shuffled with {@code seed} when {@code shuffle}, else sequential. */
    public DataLoader(Dataset dataset, int batchSize, boolean shuffle, long seed, boolean dropLast, Device device) {
        this(dataset, batchSize, shuffle ? new RandomSampler(dataset.size(), seed) : new SequentialSampler(dataset.size()), dropLast, device);
    }

    public DataLoader(Dataset dataset, int batchSize, Sampler sampler, boolean dropLast, Device device) {
        if (batchSize < 1) throw new IllegalArgumentException("DataLoader: batch size must be >= 1, got " + batchSize);
        this.dataset = dataset;
        this.batchSize = batchSize;
        this.sampler = sampler;
        this.dropLast = dropLast;
        this.device = device;
    }

    public int batchesPerEpoch() {
        int n = sampler.length();
        return dropLast ? n / batchSize : (n + batchSize - 1) / batchSize;
    }

    public Dataset dataset() { return dataset; }

    public int batchSize() { return batchSize; }

    /** The batches of epoch {@code epoch} (the sampler's order for that epoch). */
    public Iterable<Batch> epoch(int epoch) {
        return () -> new Iterator<>() {
            private final int[] order = sampler.indices(epoch);
            private final int batches = dropLast ? order.length / batchSize : (order.length + batchSize - 1) / batchSize;
            private int next;

            @Override
            public boolean hasNext() { return next < batches; }

            @Override
            public Batch next() {
                if (!hasNext()) throw new NoSuchElementException();
                int from = next * batchSize, to = Math.min(order.length, from + batchSize);
                next++;
                return gather(order, from, to);
            }
        };
    }

    private Batch gather(int[] order, int from, int to) {
        int n = to - from, fs = dataset.featureSize();
        float[] x = new float[n * fs];
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            dataset.features(order[from + i], x, i * fs);
            y[i] = dataset.label(order[from + i]);
        }
        int[] fshape = dataset.featureShape();
        int[] shape = new int[fshape.length + 1];
        shape[0] = n;
        System.arraycopy(fshape, 0, shape, 1, fshape.length);
        return new Batch(NDArray.of(device, x, shape), NDArray.of(device, y, n));
    }
}
