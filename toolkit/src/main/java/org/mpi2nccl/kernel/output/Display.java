package org.mpi2nccl.kernel.output;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import io.github.spencerpark.jupyter.kernel.display.Renderer;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import org.mpi2nccl.kernel.render.Renderers;

import java.util.UUID;

/**
 * Rich output from Java code: {@code display(chart)}, {@code display(table)}, {@code display(image)}, and
 * outputs that change in place ({@link #update}, used by {@link Progress}). Cells have these methods imported.
 *
 * <p>The same calls work in the kernel, on rank engines (the output is sent to the kernel and shown under the
 * rank's number) and in plain programs, where the text form is printed.
 */
public final class Display {
    private static final Renderer RENDERER = Renderers.create();
    private static volatile DisplaySink sink = new TextSink();

    private Display() {
    }

    /** Routes displays to {@code newSink} (the kernel and rank engines call this once at start). */
    public static void install(DisplaySink newSink) {
        sink = newSink;
    }

    /** The renderer behind {@link #render}: images, charts, tables, text. */
    public static Renderer renderer() {
        return RENDERER;
    }

    /** What {@code value} looks like as a Jupyter output bundle, in its preferred formats. */
    public static DisplayData render(Object value) {
        if (value instanceof DisplayData) {
            return (DisplayData) value;
        }
        return withoutMath(RENDERER.render(value));
    }

    /** What {@code value} looks like in the given formats, e.g. {@code "image/svg+xml"}. */
    public static DisplayData render(Object value, String... mimeTypes) {
        if (mimeTypes.length == 0) {
            return render(value);
        }
        return withoutMath(RENDERER.renderAs(value, mimeTypes));
    }

    /**
     * The toolkit's HTML is never mathematics: Jupyter's MathJax would set a Java name such as {@code Lesson03$Share}
     * or a sum of dollars in italics. Its class {@code tex2jax_ignore} (MathJax 2 and 3, Notebook and Lab) keeps it out.
     */
    static DisplayData withoutMath(DisplayData d) {
        Object html = d == null ? null : d.getData(MIMEType.TEXT_HTML);
        if (html != null) d.putHTML("<div class=\"tex2jax_ignore\">" + html + "</div>");
        return d;
    }

    /** Shows {@code value} now, and returns the id under which {@link #update} replaces it. */
    public static String display(Object value, String... mimeTypes) {
        DisplayData data = new DisplayData(render(value, mimeTypes));
        String id = data.hasDisplayId() ? data.getDisplayId() : UUID.randomUUID().toString();
        data.setDisplayId(id);
        sink.display(data);
        return id;
    }

    /** Replaces the output shown under {@code displayId} by {@code value}. */
    public static void update(String displayId, Object value, String... mimeTypes) {
        if (displayId == null || displayId.isEmpty()) {
            throw new IllegalArgumentException("update needs the id that display(...) returned");
        }
        DisplayData data = new DisplayData(render(value, mimeTypes));
        data.setDisplayId(displayId);
        sink.update(displayId, data);
    }

    /** Shows HTML (a shorthand for small formatted outputs). */
    public static String html(String html) {
        DisplayData data = new DisplayData(html.replaceAll("<[^>]*>", ""));
        data.putHTML(html);
        return display(data);
    }

    /** Outside Jupyter: print the text form; updates of one output at most once a second. */
    static final class TextSink implements DisplaySink {
        private final java.util.Map<String, Long> lastPrinted = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public void display(DisplayData data) {
            Object text = data.getData(MIMEType.TEXT_PLAIN);
            System.out.println(text != null ? text : "(output without a text form)");
            lastPrinted.put(data.getDisplayId(), System.nanoTime());
        }

        @Override
        public void update(String displayId, DisplayData data) {
            long now = System.nanoTime();
            Long last = lastPrinted.get(displayId);
            if (last == null || now - last > 1_000_000_000L) {
                display(data);
            }
        }
    }
}
