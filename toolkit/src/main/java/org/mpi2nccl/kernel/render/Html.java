package org.mpi2nccl.kernel.render;

import com.google.common.html.HtmlEscapers;

/**
 * Text put into the kernel's HTML outputs (tables, progress bars, check boxes, rank outputs) is escaped here, by
 * Guava's HTML escaper. The one rule added: a missing text (null) shows as nothing.
 */
public final class Html {
    private Html() {
    }

    public static String escape(String s) {
        return s == null ? "" : HtmlEscapers.htmlEscaper().escape(s);
    }
}
