package org.mpi2nccl.lessons.figures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The committed SVG figures in notebooks/figures are what the code draws today, each is well-formed SVG with a
 * title and text labels, and every figure a notebook shows exists.
 */
class FiguresTest {
    private static final Path NOTEBOOKS = Path.of("..", "notebooks");
    private static final Path FOLDER = NOTEBOOKS.resolve("figures");
    private static final String SVG_NS = "http://www.w3.org/2000/svg";

    @Test
    void eachCommittedFileIsWhatTheCodeDraws() throws Exception {
        List<String> stale = new ArrayList<>();
        for (Map.Entry<String, Supplier<String>> e : Figures.all().entrySet()) {
            Path file = FOLDER.resolve(e.getKey() + ".svg");
            String drawn = e.getValue().get();
            if (!Files.exists(file)) {
                stale.add("notebooks/figures/" + e.getKey() + ".svg is missing");
            } else if (!Files.readString(file, StandardCharsets.UTF_8).equals(drawn)) {
                stale.add("notebooks/figures/" + e.getKey() + ".svg differs from what the code draws");
            }
        }
        if (!stale.isEmpty()) {
            fail(String.join("; ", stale) + ". Regenerate the figures from the repository root with:\n  "
                    + Figures.REGENERATE + "\nthen look at them and commit them.");
        }
    }

    @Test
    void everySvgInTheFolderIsDrawnByAFigure() throws Exception {
        TreeSet<String> unknown = new TreeSet<>();
        try (Stream<Path> files = Files.list(FOLDER)) {
            files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".svg"))
                    .filter(n -> !Figures.all().containsKey(n.substring(0, n.length() - 4))).forEach(unknown::add);
        }
        assertTrue(unknown.isEmpty(), "notebooks/figures holds " + unknown + ", which no class in "
                + "org.mpi2nccl.lessons.figures draws: delete them, or add their figure to Figures.all()");
    }

    @Test
    void eachFigureIsSvgWithATitleADescriptionAndTextLabels() throws Exception {
        for (Map.Entry<String, Supplier<String>> e : Figures.all().entrySet()) {
            String name = e.getKey();
            Document doc = parse(e.getValue().get());
            Element root = doc.getDocumentElement();
            assertEquals("svg", root.getLocalName(), name);
            assertEquals(SVG_NS, root.getNamespaceURI(), name);
            assertFalse(text(doc, "title").isEmpty(), name + " has no <title>");
            assertFalse(text(doc, "desc").isEmpty(), name + " has no <desc>");
            assertTrue(text(doc, "text").size() >= 10, name + ": its labels should be SVG text, found " + text(doc, "text"));
            assertTrue(root.getElementsByTagNameNS(SVG_NS, "image").getLength() == 0, name + " embeds a bitmap");
            assertEquals("800px", root.getAttribute("width"), name + ": drawn for the notebook's width");
        }
    }

    @Test
    void drawingTwiceGivesTheSameBytes() {
        for (Map.Entry<String, Supplier<String>> e : Figures.all().entrySet()) {
            assertEquals(e.getValue().get(), e.getValue().get(), e.getKey() + " is not deterministic");
        }
    }

    @Test
    void everyFigureANotebookShowsExists() throws Exception {
        Pattern link = Pattern.compile("\\]\\(figures/([^)\\s]+)\\.svg\\)");
        int links = 0;
        try (Stream<Path> lessons = Files.list(NOTEBOOKS)) {
            for (Path nb : lessons.filter(p -> p.toString().endsWith(".ipynb")).sorted().toList()) {
                Matcher m = link.matcher(Files.readString(nb));
                while (m.find()) {
                    links++;
                    assertTrue(Figures.all().containsKey(m.group(1)), nb.getFileName() + " shows figures/" + m.group(1)
                            + ".svg, which no figure draws");
                }
            }
        }
        assertTrue(links > 0, "no lesson shows a figure");
    }

    @Test
    void theRingFigureFollowsLesson02sSchedule() {
        int p = 4, all = (1 << p) - 1;
        int[][] held = new int[p][p];
        for (int r = 0; r < p; r++) for (int j = 0; j < p; j++) held[r][j] = 1 << r;
        for (int s = 0; s < p - 1; s++) held = RingFigure.step(held, RingFigure.sends(s, false), true);
        for (int r = 0; r < p; r++) {
            assertEquals(all, held[r][r], "after the reduce-scatter rank " + r + " holds the complete sum of segment " + r);
            for (int j = 0; j < p; j++) if (j != r) assertTrue(held[r][j] != all, "rank " + r + ", segment " + j);
        }
        for (int s = 0; s < p - 1; s++) held = RingFigure.step(held, RingFigure.sends(s, true), false);
        for (int r = 0; r < p; r++) for (int j = 0; j < p; j++) assertEquals(all, held[r][j], "rank " + r + ", segment " + j);
    }

    @Test
    void mainWritesEveryFigure(@TempDir Path out) throws Exception {
        Figures.main(new String[] {out.toString()});
        for (Map.Entry<String, Supplier<String>> e : Figures.all().entrySet()) {
            assertEquals(e.getValue().get(), Files.readString(out.resolve(e.getKey() + ".svg")), e.getKey());
        }
    }

    @Test
    void labelsAreAnchoredAndCodeIsMonospaced() throws Exception {
        Canvas c = new Canvas(100, 50, "t", "d");
        c.text("left", 10, 10, 12, Canvas.Anchor.START);
        c.text("centre", 50, 20, 12, Canvas.Anchor.MIDDLE);
        c.code("f(x)", 90, 30, 12, false, Canvas.Anchor.END);
        NodeList texts = parse(c.svg()).getElementsByTagNameNS(SVG_NS, "text");
        assertEquals(3, texts.getLength());
        assertEquals("", ((Element) texts.item(0)).getAttribute("text-anchor"));
        assertEquals("middle", ((Element) texts.item(1)).getAttribute("text-anchor"));
        Element code = (Element) texts.item(2);
        assertEquals("end", code.getAttribute("text-anchor"));
        assertTrue(code.getAttribute("style").contains("monospace"), code.getAttribute("style"));
        assertFalse(((Element) texts.item(1)).getAttribute("style").contains("font-family"),
                "a label names no font of this machine: the SVG root names the fonts");
    }

    private static Document parse(String svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newDefaultInstance();
        f.setNamespaceAware(true);
        f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<String> text(Document doc, String tag) {
        NodeList nodes = doc.getElementsByTagNameNS(SVG_NS, tag);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            String t = nodes.item(i).getTextContent().strip();
            if (!t.isEmpty()) out.add(t);
        }
        return out;
    }
}
