package org.mpi2nccl.cli;

import static com.google.common.base.Preconditions.checkArgument;

import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.mpi2nccl.data.ArrayDataset;
import org.mpi2nccl.data.DataLoader;
import org.mpi2nccl.data.FashionMnist;
import org.mpi2nccl.nn.Models;
import org.mpi2nccl.nn.Module;
import org.mpi2nccl.nn.SoftmaxCrossEntropyLoss;
import org.mpi2nccl.nn.Training;
import org.mpi2nccl.optim.Adam;
import org.mpi2nccl.optim.Optimizer;
import org.mpi2nccl.optim.SGD;
import org.mpi2nccl.tensor.Backends;
import org.mpi2nccl.tensor.Device;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** The single-device benchmark of the framework: train the lesson MLP or CNN on Fashion-MNIST, report per epoch. */
@Command(name = "train-fashion-mnist", mixinStandardHelpOptions = true,
        description = "Train the lesson MLP (784-256-10) or CNN on Fashion-MNIST on one device; print loss, accuracy and time per epoch.")
public final class TrainFashionMnistCommand implements Callable<Integer> {

    @Option(names = "--model", description = "mlp or cnn (default ${DEFAULT-VALUE})", defaultValue = "mlp")
    String model;

    @Option(names = "--epochs", description = "epochs (default ${DEFAULT-VALUE})", defaultValue = "3")
    int epochs;

    @Option(names = "--batch-size", description = "batch size (default ${DEFAULT-VALUE})", defaultValue = "64")
    int batchSize;

    @Option(names = "--optimizer", description = "sgd or adam (default ${DEFAULT-VALUE})", defaultValue = "adam")
    String optimizer;

    @Option(names = "--lr", description = "learning rate (default: 1e-3 for adam, 0.05 for sgd)")
    Float lr;

    @Option(names = "--lr-decay", description = "multiply the learning rate by this after every epoch (default ${DEFAULT-VALUE})",
            defaultValue = "1")
    float lrDecay;

    @Option(names = "--momentum", description = "SGD momentum (default ${DEFAULT-VALUE})", defaultValue = "0.9")
    float momentum;

    @Option(names = "--weight-decay", description = "weight decay (default ${DEFAULT-VALUE})", defaultValue = "0")
    float weightDecay;

    @Option(names = "--hidden", description = "MLP hidden units (default ${DEFAULT-VALUE})", defaultValue = "256")
    int hidden;

    @Option(names = "--channels", split = ",", description = "CNN channels of the two conv layers (default ${DEFAULT-VALUE})",
            defaultValue = "16,32")
    int[] channels;

    @Option(names = "--device", description = "cpu, cuda or cuda:N (default ${DEFAULT-VALUE})", defaultValue = "cpu")
    String device;

    @Option(names = "--data", description = "Fashion-MNIST folder (default: $MPI2NCCL_FASHION_MNIST or " + FashionMnist.DEBIAN_DIR + ")")
    Path data;

    @Option(names = "--train-limit", description = "use only the first N training images (quick runs)")
    Integer trainLimit;

    @Option(names = "--seed", description = "seed of weights and shuffling (default ${DEFAULT-VALUE})", defaultValue = "0")
    long seed;

    /**
     * Every setting checked before anything is loaded: a mistake costs one line, not a minute of reading the data
     * followed by a stack trace. Returns the device.
     */
    Device validate() {
        checkArgument(epochs >= 1, "--epochs must be at least 1, got %s", epochs);
        checkArgument(batchSize >= 1, "--batch-size must be at least 1, got %s", batchSize);
        checkArgument(trainLimit == null || trainLimit >= 1, "--train-limit must be at least 1, got %s", trainLimit);
        checkArgument(model.equals("mlp") || model.equals("cnn"), "--model must be mlp or cnn, got %s", model);
        checkArgument(optimizer.equals("sgd") || optimizer.equals("adam"), "--optimizer must be sgd or adam, got %s", optimizer);
        checkArgument(lr == null || (Float.isFinite(lr) && lr > 0), "--lr must be a positive number, got %s", lr);
        checkArgument(Float.isFinite(lrDecay) && lrDecay > 0, "--lr-decay must be a positive number, got %s", lrDecay);
        checkArgument(momentum >= 0 && momentum < 1, "--momentum must be in [0, 1), got %s", momentum);
        checkArgument(Float.isFinite(weightDecay) && weightDecay >= 0, "--weight-decay must be >= 0, got %s", weightDecay);
        checkArgument(hidden >= 1, "--hidden must be at least 1, got %s", hidden);
        checkArgument(channels.length == 2 && channels[0] >= 1 && channels[1] >= 1,
                "--channels takes two positive numbers, e.g. 16,32");
        Device dev = Device.parse(device);
        checkArgument(Backends.isAvailable(dev), "--device %s, but no backend for it is usable here (use --device cpu)", dev);
        FashionMnist.requirePresent(dataDir());
        return dev;
    }

    private Path dataDir() {
        return data != null ? data : FashionMnist.defaultDir();
    }

    @Override
    public Integer call() {
        Device dev = validate();
        Path dir = dataDir();
        long t0 = System.nanoTime();
        ArrayDataset train = FashionMnist.train(dir), test = FashionMnist.test(dir);
        if (trainLimit != null) train = train.head(Math.min(trainLimit, train.size()));
        System.out.printf(Locale.ROOT, "Fashion-MNIST from %s: %d training, %d test images (read in %.1f s)%n",
                dir, train.size(), test.size(), (System.nanoTime() - t0) / 1e9);
        try (Module net = model.equals("cnn") ? Models.cnn(channels[0], channels[1], dev, seed) : Models.mlp(hidden, dev, seed);
             Optimizer opt = optimizer.equals("sgd") ? new SGD(net.parameters(), lr != null ? lr : 0.05f, momentum, weightDecay)
                     : new Adam(net.parameters(), lr != null ? lr : 1e-3f, 0.9f, 0.999f, 1e-8f, weightDecay)) {
            System.out.println("device: " + dev + " — " + dev.backend().describe());
            System.out.println("model (" + net.parameterCount() + " parameters): " + net);
            System.out.printf(Locale.ROOT, "optimizer: %s lr %g (x%g per epoch), batch size %d, seed %d%n", optimizer, opt.lr(), lrDecay,
                    batchSize, seed);
            // on a GPU, gather the next batches while the step runs (a CPU run uses every core for the step itself)
            DataLoader trainLoader = new DataLoader(train, batchSize, true, seed, false, dev).withPrefetch(dev.isCpu() ? 0 : 2);
            DataLoader testLoader = new DataLoader(test, 500, false, 0, false, dev);
            SoftmaxCrossEntropyLoss loss = new SoftmaxCrossEntropyLoss();
            System.out.println("epoch  train_loss  train_acc  test_loss  test_acc  epoch_s  samples_per_s");
            double total = 0;
            for (int e = 0; e < epochs; e++) {
                Training.EpochResult tr = Training.trainEpoch(net, trainLoader, e, opt, loss, null);
                Training.EpochResult te = Training.evaluate(net, testLoader, loss);
                total += tr.seconds();
                System.out.printf(Locale.ROOT, "%5d  %10.4f  %9.4f  %9.4f  %8.4f  %7.2f  %13.0f%n",
                        e + 1, tr.meanLoss(), tr.accuracy(), te.meanLoss(), te.accuracy(), tr.seconds(), tr.samplesPerSecond());
                System.out.flush();
                opt.setLr(opt.lr() * lrDecay);
            }
            System.out.printf(Locale.ROOT, "total training time %.1f s (%d epochs)%n", total, epochs);
        }
        return 0;
    }
}
