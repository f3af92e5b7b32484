package org.mpi2nccl.doctor;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import io.github.spencerpark.jupyter.kernel.display.DisplayDataRenderable;
import io.github.spencerpark.jupyter.kernel.display.RenderContext;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import org.mpi2nccl.html.HtmlTable;
import org.mpi2nccl.html.HtmlTable.Align;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The machine report: every finding, plus the numbers lessons compute with (cores, memory, GPUs). In a notebook
 * it shows as a table with the status coloured; {@link #text()} is the same for a terminal.
 */
public final class MachineReport implements DisplayDataRenderable {
    private final List<Finding> findings;
    private final int cores;
    private final long memoryBytes;
    private final int gpus;

    MachineReport(List<Finding> findings, int cores, long memoryBytes, int gpus) {
        this.findings = List.copyOf(findings);
        this.cores = cores;
        this.memoryBytes = memoryBytes;
        this.gpus = gpus;
    }

    public List<Finding> findings() {
        return findings;
    }

    /** The findings of one section ("Machine", "Java", "MPJ Express", "GPU", ...). */
    public List<Finding> section(String name) {
        return findings.stream().filter(f -> f.section().equals(name)).collect(Collectors.toList());
    }

    public int cores() {
        return cores;
    }

    public long memoryBytes() {
        return memoryBytes;
    }

    public int gpus() {
        return gpus;
    }

    /** Whether nothing failed (missing GPUs are not a failure: the lessons then run on the CPU). */
    public boolean healthy() {
        return findings.stream().noneMatch(f -> f.status() == Finding.Status.FAIL);
    }

    public Table table() {
        return Table.create("machine report",
                StringColumn.create("section", findings.stream().map(Finding::section)),
                StringColumn.create("item", findings.stream().map(Finding::item)),
                StringColumn.create("status", findings.stream().map(f -> f.status().name())),
                StringColumn.create("detail", findings.stream().map(Finding::detail)));
    }

    public String text() {
        return Finding.text(findings);
    }

    public String html() {
        HtmlTable t = new HtmlTable().header(List.of(HtmlTable.cell("section"), HtmlTable.cell("item"),
                HtmlTable.cell("status"), HtmlTable.cell("detail").align(Align.LEFT)));
        for (Finding f : findings) {
            String colour = switch (f.status()) {
                case OK -> "#1a7f37";
                case INFO -> "#57606a";
                case WARN, MISSING -> "#9a6700";
                case FAIL -> "#cf222e";
            };
            t.row(HtmlTable.cell(f.section()), HtmlTable.cell(f.item()),
                    HtmlTable.cell(f.status().name()).colour(colour).bold(), HtmlTable.cell(f.detail()).align(Align.LEFT));
        }
        return t.html();
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
        ctx.renderIfRequested(MIMEType.TEXT_HTML, this::html);
        ctx.renderIfRequested(MIMEType.TEXT_PLAIN, this::text);
    }

    /** The report as an output bundle (also what the kernel shows for a report value). */
    public DisplayData display() {
        DisplayData d = new DisplayData(text());
        d.putHTML(html());
        return d;
    }

    @Override
    public String toString() {
        return text();
    }
}
