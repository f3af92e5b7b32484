package org.mpi2nccl.data;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

/**
 * Batches of a {@link Dataset} in the order of a {@link Sampler}, copied to a device: gathered on the host,
 * then one host-to-device copy per array. Batches belong to the caller (close them, or open an
 * {@code ArrayScope} per step).
 * <p>{@link #withPrefetch} gathers the next batches on a background thread while the caller trains on this
 * one, as PyTorch's DataLoader does with worker processes: a GPU step that takes less host time than
 * gathering a batch would otherwise wait for the gather every step. The copy to the device stays on the
 * caller's thread (its CUDA context and stream).
 */
public final class DataLoader {
    /** How long a batch may take to gather before the loader gives up (a gather is local work: this is a bug). */
    static final Duration GATHER_TIMEOUT = Duration.ofSeconds(120);

    private final Dataset dataset;
    private final int batchSize;
    private final Sampler sampler;
    private final boolean dropLast;
    private final Device device;
    private final int prefetch;
    // Gathering buffers of full batches, handed back once a batch is on its device (NDArray.of copies them): a
    // training loop then does not leave a batch's worth of floats to the garbage collector every step, whose
    // pauses can last longer than the host runs ahead of the GPU, which then idles.
    private final Queue<float[][]> spare = new ConcurrentLinkedQueue<>();

    /** Shuffled with {@code seed} when {@code shuffle}, else sequential. */
    public DataLoader(Dataset dataset, int batchSize, boolean shuffle, long seed, boolean dropLast, Device device) {
        this(dataset, batchSize, shuffle ? new RandomSampler(dataset.size(), seed) : new SequentialSampler(dataset.size()), dropLast, device);
    }

    public DataLoader(Dataset dataset, int batchSize, Sampler sampler, boolean dropLast, Device device) {
        this(dataset, batchSize, sampler, dropLast, device, 0);
    }

    private DataLoader(Dataset dataset, int batchSize, Sampler sampler, boolean dropLast, Device device, int prefetch) {
        if (batchSize < 1) throw new IllegalArgumentException("DataLoader: batch size must be >= 1, got " + batchSize);
        this.dataset = dataset;
        this.batchSize = batchSize;
        this.sampler = sampler;
        this.dropLast = dropLast;
        this.device = device;
        this.prefetch = prefetch;
    }

    /**
     * The same loader, gathering up to {@code batches} batches ahead on a background thread (0: none, every
     * batch gathered when asked for). The data set is then read from that thread: the data sets here are
     * read-only after they are built.
     */
    public DataLoader withPrefetch(int batches) {
        if (batches < 0) throw new IllegalArgumentException("DataLoader: prefetch must be >= 0 batches, got " + batches);
        return new DataLoader(dataset, batchSize, sampler, dropLast, device, batches);
    }

    /** How many batches are gathered ahead on a background thread (0: none). */
    public int prefetch() { return prefetch; }

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
            private final ArrayDeque<Prefetcher.Pending> ahead = new ArrayDeque<>();
            private int next, gathered;

            @Override
            public boolean hasNext() { return next < batches; }

            @Override
            public Batch next() {
                if (!hasNext()) throw new NoSuchElementException();
                HostBatch h;
                if (prefetch == 0) {
                    h = gather(gathered++);
                } else {
                    while (gathered < batches && ahead.size() <= prefetch) {
                        int k = gathered++;
                        ahead.add(Prefetcher.submit(() -> gather(k)));
                    }
                    h = ahead.poll().await(next, GATHER_TIMEOUT);
                }
                next++;
                Batch b = h.upload(device);
                if (h.y().length == batchSize && spare.size() <= prefetch + 1) spare.offer(new float[][] {h.x(), h.y()});
                return b;
            }

            private HostBatch gather(int k) {
                int from = k * batchSize, to = Math.min(order.length, from + batchSize);
                return HostBatch.gather(dataset, order, from, to, to - from == batchSize ? spare.poll() : null);
            }
        };
    }

    /** A batch gathered on the host, not yet on the device. */
    record HostBatch(float[] x, float[] y, int[] shape) {
        /** Examples {@code order[from..to)}, into {@code reuse} ({x, y} of that size, every element overwritten) when given. */
        static HostBatch gather(Dataset dataset, int[] order, int from, int to, float[][] reuse) {
            int n = to - from, fs = dataset.featureSize();
            float[] x = reuse != null ? reuse[0] : new float[n * fs];
            float[] y = reuse != null ? reuse[1] : new float[n];
            for (int i = 0; i < n; i++) {
                dataset.features(order[from + i], x, i * fs);
                y[i] = dataset.label(order[from + i]);
            }
            int[] fshape = dataset.featureShape();
            int[] shape = new int[fshape.length + 1];
            shape[0] = n;
            System.arraycopy(fshape, 0, shape, 1, fshape.length);
            return new HostBatch(x, y, shape);
        }

        Batch upload(Device device) {
            NDArray xs = NDArray.of(device, x, shape);
            try {
                return new Batch(xs, NDArray.of(device, y, y.length));
            } catch (RuntimeException e) {
                xs.close();
                throw e;
            }
        }
    }
}
