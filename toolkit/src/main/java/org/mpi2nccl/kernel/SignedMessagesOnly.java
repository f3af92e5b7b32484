package org.mpi2nccl.kernel;

import io.github.spencerpark.jupyter.channels.JupyterConnection;
import io.github.spencerpark.jupyter.channels.Loop;

import java.io.PrintStream;
import java.lang.reflect.Field;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A message whose signature is wrong is dropped, and the kernel goes on. Every user of a machine can connect to a
 * kernel's ports on 127.0.0.1; only the kernel's own user reads the key that signs its messages, so a forged message
 * cannot run code. But basekernel checks the signature by throwing, and the exception ended the thread that reads
 * the shell (or control) channel: one forged message from another user and the kernel never ran a cell again.
 * Here each channel's loop drops such a message and reads the next.
 */
final class SignedMessagesOnly {
    /** How long a loop waits after a dropped message, as basekernel's shell loop does between polls. */
    private static final long PAUSE_MS = 50;
    private static final AtomicLong DROPPED = new AtomicLong();

    private SignedMessagesOnly() {
    }

    /** Guards the shell and control channels of a connected connection. */
    static void guard(JupyterConnection connection, PrintStream log) {
        for (String channel : new String[] {"shell", "control"}) {
            Loop loop = loopOf(connection, channel);
            loop.onError(e -> {
                if (!(e instanceof SecurityException)) {
                    throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
                }
                // The first few are said: someone sent this kernel messages without its key.
                if (DROPPED.incrementAndGet() <= 3) {
                    log.println("mpi2nccl kernel: dropped a message on the " + channel + " channel: " + e.getMessage()
                            + " (not signed with this kernel's key)");
                }
                return PAUSE_MS;
            });
        }
    }

    private static Loop loopOf(JupyterConnection connection, String channel) {
        try {
            Field socket = JupyterConnection.class.getDeclaredField(channel);
            socket.setAccessible(true);
            Object shell = socket.get(connection);
            Field ioloop = shell.getClass().getDeclaredField("ioloop");
            ioloop.setAccessible(true);
            Loop loop = (Loop) ioloop.get(shell);
            if (loop == null) throw new IllegalStateException("the " + channel + " channel is not bound yet");
            return loop;
        } catch (ReflectiveOperationException e) {
            // basekernel's fields changed: better no kernel than one that another user can stop
            throw new IllegalStateException("cannot guard the kernel's " + channel + " channel against forged messages"
                    + " (jupyter-jvm-basekernel's internals changed?): " + e, e);
        }
    }
}
