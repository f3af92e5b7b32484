package org.mpi2nccl.notebook;

import io.github.spencerpark.jupyter.channels.ShellReplyEnvironment;
import io.github.spencerpark.jupyter.messages.ContentType;
import io.github.spencerpark.jupyter.messages.Message;
import io.github.spencerpark.jupyter.messages.MessageType;
import io.github.spencerpark.jupyter.messages.reply.ErrorReply;

import java.util.function.Consumer;

/**
 * The reply environment of one execute request, without Jupyter: what the kernel publishes on its IOPub channel
 * (streams, displays, results, errors) and replies on its shell channel goes to a consumer instead of a socket.
 * The kernel cannot tell: it runs the cell exactly as for a Jupyter front end.
 *
 * <p>Jupyter's environment can hold a message back until the handler returns ({@code defer()}, used for the
 * reply and the "idle" status); here nothing travels, so those go out at once, in the order they are made.
 * Deferred actions (the kernel puts its own {@code System.out} back that way) still run at
 * {@link #resolveDeferrals()}.
 */
final class RecordingReplyEnvironment extends ShellReplyEnvironment {
    private final Consumer<Object> published;
    private final Consumer<Object> replied;

    /** {@code published}: each IOPub message's content; {@code replied}: each shell reply's content. */
    RecordingReplyEnvironment(Consumer<Object> published, Consumer<Object> replied) {
        super(null, null, null, null); // no channels: every method that would use them is overridden
        this.published = published;
        this.replied = replied;
    }

    @Override
    public void publish(Message<?> message) {
        published.accept(message.getContent());
    }

    @Override
    public <T extends ContentType<T>> void publish(T content) {
        published.accept(content);
    }

    @Override
    public void reply(Message<?> message) {
        replied.accept(message.getContent());
    }

    @Override
    public <T extends ContentType<T>> void reply(T content) {
        replied.accept(content);
    }

    @Override
    public void replyError(MessageType<?> type, ErrorReply error) {
        replied.accept(error);
    }

    @Override
    public ShellReplyEnvironment defer() {
        return this;
    }

    @Override
    public void setStatusBusy() {
        // no front end to tell
    }

    @Override
    public void setStatusIdle() {
        // no front end to tell
    }

    @Override
    public String readFromStdIn(String prompt, boolean isPassword) {
        throw new IllegalStateException("this cell asked for input (\"" + prompt + "\"), and a notebook run without"
                + " Jupyter has nobody to type it");
    }
}
