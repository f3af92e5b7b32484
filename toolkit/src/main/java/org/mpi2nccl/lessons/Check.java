package org.mpi2nccl.lessons;

import io.github.spencerpark.jupyter.kernel.display.DisplayDataRenderable;
import io.github.spencerpark.jupyter.kernel.display.RenderContext;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import org.mpi2nccl.html.Html;

import java.util.Set;

/**
 * The outcome of an exercise's check cell: right, or wrong with an explanation of what the answer looks like
 * and what to change. Shown green or red in the notebook.
 *
 * <p>When the environment variable {@value #STRICT_ENV} is 1 (the notebook tests set it, with the reference
 * answers put in), a wrong answer throws instead, so that a broken exercise fails the build.
 */
public final class Check implements DisplayDataRenderable {
    public static final String STRICT_ENV = "MPI2NCCL_STRICT_CHECKS";

    private final boolean passed;
    private final String title;
    private final String explanation;

    private Check(boolean passed, String title, String explanation) {
        this.passed = passed;
        this.title = title;
        this.explanation = explanation;
    }

    static Check right(String title, String explanation) {
        return new Check(true, title, explanation);
    }

    /** A wrong answer; in strict mode this throws {@link AssertionError} with the explanation. */
    static Check wrong(String title, String explanation) {
        Check c = new Check(false, title, explanation);
        if ("1".equals(System.getenv(STRICT_ENV))) {
            throw new AssertionError("exercise check failed: " + title + ": " + explanation);
        }
        return c;
    }

    public boolean passed() {
        return passed;
    }

    public String title() {
        return title;
    }

    public String explanation() {
        return explanation;
    }

    @Override
    public Set<MIMEType> getSupportedRenderTypes() {
        return Set.of(MIMEType.TEXT_HTML, MIMEType.TEXT_PLAIN);
    }

    @Override
    public Set<MIMEType> getPreferredRenderTypes() {
        return Set.of(MIMEType.TEXT_HTML);
    }

    @Override
    public void render(RenderContext ctx) {
        ctx.renderIfRequested(MIMEType.TEXT_PLAIN, this::toString);
        ctx.renderIfRequested(MIMEType.TEXT_HTML, () -> "<div style=\"border-left:4px solid "
                + (passed ? "#1a7f37" : "#cf222e") + ";padding:4px 8px\"><b>" + (passed ? "&#10004; " : "&#10008; ")
                + Html.escape(title) + "</b><br/>" + Html.escape(explanation) + "</div>");
    }

    @Override
    public String toString() {
        return (passed ? "RIGHT: " : "NOT YET: ") + title + "\n" + explanation;
    }
}
