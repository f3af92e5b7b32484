package org.mpi2nccl.html;

import com.google.common.html.HtmlEscapers;

/**
 * Text put into the toolkit's HTML (notebook outputs, the gradebook, the speedup report) is escaped here, by
 * Guava's HTML escaper, which also escapes both quotes, so the result is safe inside an attribute value too. The
 * one rule added: a missing text (null) shows as nothing.
 */
public final class Html {
    private Html() {
    }

    public static String escape(String s) {
        return s == null ? "" : HtmlEscapers.htmlEscaper().escape(s);
    }
}
