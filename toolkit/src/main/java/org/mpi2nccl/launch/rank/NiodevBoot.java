package org.mpi2nccl.launch.rank;

import java.util.Arrays;

/**
 * The main class MPJ's niodev daemon starts in every rank JVM (one rank per JVM, on any host). The daemon
 * calls {@code main(rank, conf, "niodev", MAIN_CLASS, args...)}; this class tags the JVM's output with the
 * rank, then calls {@code MAIN_CLASS.main(rank, conf, "niodev", args...)}, which is what an MPJ program
 * expects to hand to {@code MPI.Init}. The JVM ends when its daemon is gone ({@link ParentWatch}) and says how
 * it leaves when it goes before main returned ({@link ExitReport}).
 */
public final class NiodevBoot {
    private NiodevBoot() {}

    public static void main(String[] args) {
        int rank = Integer.parseInt(args[0]);
        TaggedOutput.install(rank);
        ParentWatch.start();
        ExitReport.install();
        if (args.length < 4) {
            TaggedOutput.control(Wire.Kind.FAIL, RankFailureRecord.of(new IllegalArgumentException(
                    "NiodevBoot needs rank, conf, device and the main class; got " + Arrays.toString(args))).toJson());
            RankMain.haltAfterFailure();
        }
        String mainClass = args[3];
        String[] rankArgs = new String[args.length - 1];
        System.arraycopy(args, 0, rankArgs, 0, 3);
        System.arraycopy(args, 4, rankArgs, 3, args.length - 4);
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        if (loader == null) loader = NiodevBoot.class.getClassLoader();
        if (!RankMain.run(loader, mainClass, rankArgs)) RankMain.haltAfterFailure();
    }
}
