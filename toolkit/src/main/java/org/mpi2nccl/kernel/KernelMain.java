package org.mpi2nccl.kernel;

import io.github.spencerpark.jupyter.channels.JupyterConnection;
import io.github.spencerpark.jupyter.kernel.KernelConnectionProperties;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Starts the kernel: {@code java -cp TOOLKIT org.mpi2nccl.kernel.KernelMain CONNECTION_FILE}, as the kernelspec
 * (build/jupyter/kernels/mpi2nccl-java/kernel.json, written by build.sh) tells Jupyter to.
 */
public final class KernelMain {
    /**
     * basekernel logs every message and every channel's start and stop at INFO (loggers "Jupyter", "Shell-0",
     * ...): keep the Jupyter server's log for problems.
     */
    private static final java.util.logging.Logger ROOT_LOG = java.util.logging.Logger.getLogger("");

    private KernelMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: KernelMain CONNECTION_FILE (Jupyter starts the kernel this way; run"
                    + " ./build.sh notebook to use it)");
            System.exit(2);
        }
        Path file = Path.of(args[0]);
        if (!Files.isReadable(file)) {
            System.err.println("cannot read the connection file " + file + ": Jupyter writes it before starting"
                    + " the kernel");
            System.exit(2);
        }
        // The kernelspec points java.io.tmpdir at the user's private folder: made (0700) and checked before any
        // library unpacks a native file into it.
        org.mpi2nccl.files.UnpackedLibraries.sweep(org.mpi2nccl.files.PrivateTemp.folder());
        ROOT_LOG.setLevel(java.util.logging.Level.WARNING);
        PrintStream log = System.err; // before basekernel swaps the streams for cells
        JavaKernel kernel = new JavaKernel(log);
        Runtime.getRuntime().addShutdownHook(new Thread(kernel::shutdownEngines, "stop-rank-engines"));
        // a Jupyter server or nbclient killed without shutting the kernel down: the kernel goes, and its shutdown
        // hook stops the engines
        org.mpi2nccl.launch.rank.ParentWatch.onParentGone("watch-parent", 1000, () -> {
            log.println("mpi2nccl kernel: the process that started it is gone: stopping the kernel and its rank engines");
            System.exit(0);
        });
        JupyterConnection connection = new JupyterConnection(KernelConnectionProperties.parse(Files.readString(file)));
        kernel.becomeHandlerForConnection(connection);
        connection.connect();
        SignedMessagesOnly.guard(connection, log);
        connection.waitUntilClose();
        kernel.shutdownEngines();
        System.exit(0); // JShell and ZeroMQ leave threads behind
    }
}
