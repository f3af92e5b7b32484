package org.mpi2nccl.kernel.output;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** The toolkit's HTML outputs are kept from Jupyter's MathJax: a Java name with '$' is shown as it is written. */
class DisplayMathTest {
    @Test
    void aTableNamingANestedClassIsMarkedForMathJaxToLeaveAlone() {
        Table t = Table.create("classes", StringColumn.create("name", "Lesson03$Share", "Lesson03$Planner"));
        DisplayData d = Display.render(t);
        String html = String.valueOf(d.getData(MIMEType.TEXT_HTML));
        assertTrue(html.startsWith("<div class=\"tex2jax_ignore\">") && html.contains("Lesson03$Share"), html);
    }
}
