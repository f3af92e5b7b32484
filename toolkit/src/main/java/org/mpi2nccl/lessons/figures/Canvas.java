package org.mpi2nccl.lessons.figures;

import de.erichseifert.vectorgraphics2d.VectorGraphics2D;
import de.erichseifert.vectorgraphics2d.svg.SVGProcessor;
import de.erichseifert.vectorgraphics2d.util.PageSize;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.RenderingHints;
import java.awt.Stroke;
import java.awt.geom.Line2D;
import java.awt.geom.Path2D;
import java.awt.geom.Rectangle2D;
import java.awt.geom.RoundRectangle2D;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * One figure's drawing surface: Graphics2D calls recorded by VectorGraphics2D, written out as an SVG document with a
 * title and a description, its text kept as text.
 *
 * <p>Text never depends on this machine's fonts. Every label is drawn in the logical font "Dialog", which
 * VectorGraphics2D writes without a font-family; the SVG root names a font stack instead, and text is centred or
 * right-aligned with SVG's text-anchor, so the browser places it with the font it really uses. Font metrics are
 * never asked for: they differ between machines, and the committed files must come out byte for byte the same.
 */
final class Canvas {
    /** The Okabe-Ito colours, told apart with any of the common colour-vision deficiencies. */
    static final Color BLUE = new Color(0x0072B2), ORANGE = new Color(0xE69F00), GREEN = new Color(0x009E73),
            PURPLE = new Color(0xCC79A7), SKY = new Color(0x56B4E9), VERMILION = new Color(0xD55E00),
            YELLOW = new Color(0xF0E442), INK = new Color(0x222222), GREY = new Color(0x777777),
            LIGHT = new Color(0xEEEEEE);
    /** Rank r's colour, in every figure that tells ranks (or the slice a rank owns) apart. */
    static final List<Color> RANKS = List.of(BLUE, ORANGE, GREEN, PURPLE);

    private static final String FONTS = "font-family:'DejaVu Sans',Verdana,Arial,Helvetica,sans-serif;font-size:12px";
    private static final String CODE_FONTS = "font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;";

    /** Where a label's x coordinate is: its start, its middle or its end. */
    enum Anchor { START, MIDDLE, END }

    final int width, height;
    private final String title, description;
    private final VectorGraphics2D g = new VectorGraphics2D();
    // each label's anchor and font, in drawing order: VectorGraphics2D writes one <text> per drawString, in order
    private final List<Anchor> anchors = new ArrayList<>();
    private final List<Boolean> monospaced = new ArrayList<>();

    Canvas(int width, int height, String title, String description) {
        this.width = width;
        this.height = height;
        this.title = title;
        this.description = description;
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fill(new Rectangle2D.Double(0, 0, width, height));   // a dark notebook theme must not show through
    }

    /** A filled box with a thin outline; fill or outline null leaves that part out. */
    void box(double x, double y, double w, double h, Color fill, Color outline) {
        RoundRectangle2D r = new RoundRectangle2D.Double(x, y, w, h, 6, 6);
        if (fill != null) {
            g.setColor(fill);
            g.fill(r);
        }
        if (outline != null) {
            g.setColor(outline);
            g.setStroke(new BasicStroke(1.2f));
            g.draw(r);
        }
    }

    /** An empty box with a dashed outline: a place that holds nothing (yet). */
    void dashedBox(double x, double y, double w, double h, Color outline) {
        g.setColor(outline);
        g.setStroke(dashed(1f));
        g.draw(new RoundRectangle2D.Double(x, y, w, h, 6, 6));
    }

    /** A plain rectangle, filled, no outline (bars and stripes). */
    void rect(double x, double y, double w, double h, Color fill) {
        g.setColor(fill);
        g.fill(new Rectangle2D.Double(x, y, w, h));
    }

    /** A rectangle's outline, {@code thickness} px wide. */
    void outline(double x, double y, double w, double h, Color colour, float thickness) {
        g.setColor(colour);
        g.setStroke(new BasicStroke(thickness));
        g.draw(new Rectangle2D.Double(x, y, w, h));
    }

    void line(double x1, double y1, double x2, double y2, Color colour, float thickness, boolean dashes) {
        g.setColor(colour);
        g.setStroke(dashes ? dashed(thickness) : new BasicStroke(thickness, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER));
        g.draw(new Line2D.Double(x1, y1, x2, y2));
    }

    /** A line from (x1, y1) with a filled head at (x2, y2). */
    void arrow(double x1, double y1, double x2, double y2, Color colour, float thickness) {
        arrow(x1, y1, x2, y2, colour, thickness, false);
    }

    void arrow(double x1, double y1, double x2, double y2, Color colour, float thickness, boolean dashes) {
        double len = Math.hypot(x2 - x1, y2 - y1), ux = (x2 - x1) / len, uy = (y2 - y1) / len;
        double head = 5 + 2.5 * thickness, half = head * 0.45;
        line(x1, y1, x2 - ux * head * 0.8, y2 - uy * head * 0.8, colour, thickness, dashes);
        Path2D.Double p = new Path2D.Double();
        p.moveTo(x2, y2);
        p.lineTo(x2 - ux * head - uy * half, y2 - uy * head + ux * half);
        p.lineTo(x2 - ux * head + uy * half, y2 - uy * head - ux * half);
        p.closePath();
        g.setColor(colour);
        g.fill(p);
    }

    /** A label: {@code size} px, plain or bold, its x where {@code anchor} says. */
    void text(String s, double x, double y, int size, boolean bold, Color colour, Anchor anchor) {
        label(s, x, y, size, bold, colour, anchor, false);
    }

    /** Code (a call, an address): in a monospaced font. */
    void code(String s, double x, double y, int size, boolean bold, Anchor anchor) {
        label(s, x, y, size, bold, INK, anchor, true);
    }

    private void label(String s, double x, double y, int size, boolean bold, Color colour, Anchor anchor, boolean mono) {
        g.setFont(new Font(Font.DIALOG, bold ? Font.BOLD : Font.PLAIN, size));
        g.setColor(colour);
        g.drawString(s, (float) x, (float) y);
        anchors.add(anchor);
        monospaced.add(mono);
    }

    void text(String s, double x, double y, int size, Anchor anchor) {
        text(s, x, y, size, false, INK, anchor);
    }

    /** Lines of text under each other, {@code lead} px apart, from baseline y. */
    void lines(List<String> ls, double x, double y, int size, double lead, Anchor anchor) {
        for (int i = 0; i < ls.size(); i++) text(ls.get(i), x, y + i * lead, size, anchor);
    }

    /** A colour mixed with white: 0 gives the colour, 1 white. */
    static Color tint(Color c, double white) {
        return new Color(mix(c.getRed(), white), mix(c.getGreen(), white), mix(c.getBlue(), white));
    }

    private static int mix(int channel, double white) {
        return (int) Math.round(channel + (255 - channel) * white);
    }

    private static Stroke dashed(float thickness) {
        return new BasicStroke(thickness, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {4f, 3f}, 0f);
    }

    /** The SVG document: VectorGraphics2D's, with the title, description, font stack and text anchors added. */
    String svg() {
        try {
            ByteArrayOutputStream raw = new ByteArrayOutputStream();
            new SVGProcessor().getDocument(g.getCommands(), new PageSize(0, 0, width, height)).writeTo(raw);
            Document doc = parse(raw.toByteArray());
            Element root = doc.getDocumentElement();
            dropBlankText(root);
            root.setAttribute("style", FONTS);
            root.setAttribute("role", "img");
            Node first = root.getFirstChild();
            root.insertBefore(element(doc, "title", title), first);
            root.insertBefore(element(doc, "desc", description), first);
            styleTexts(root.getElementsByTagName("text"));
            return write(doc);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the figure \"" + title + "\"", e);
        } catch (Exception e) {
            throw new IllegalStateException("could not write the figure \"" + title + "\"", e);
        }
    }

    private void styleTexts(NodeList texts) {
        if (texts.getLength() != anchors.size()) {
            throw new IllegalStateException(texts.getLength() + " <text> elements for " + anchors.size() + " labels drawn");
        }
        for (int i = 0; i < texts.getLength(); i++) {
            Element t = (Element) texts.item(i);
            Anchor a = anchors.get(i);
            if (a != Anchor.START) t.setAttribute("text-anchor", a.name().toLowerCase(Locale.ROOT));
            if (monospaced.get(i)) t.setAttribute("style", CODE_FONTS + t.getAttribute("style"));
        }
    }

    /** The JDK's own parser, which never fetches the SVG 1.1 DTD that the DOCTYPE names. */
    private static Document parse(byte[] xml) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newDefaultInstance();
        f.setNamespaceAware(true);
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
        return f.newDocumentBuilder().parse(new ByteArrayInputStream(xml));
    }

    private static Element element(Document doc, String name, String content) {
        Element e = doc.createElementNS(doc.getDocumentElement().getNamespaceURI(), name);
        e.setTextContent(content);
        return e;
    }

    // The processor's indentation comes back as text nodes; the writer below indents again.
    private static void dropBlankText(Node n) {
        for (Node c = n.getFirstChild(); c != null; ) {
            Node next = c.getNextSibling();
            if (c.getNodeType() == Node.TEXT_NODE && c.getTextContent().isBlank() && !"text".equals(n.getLocalName())) {
                n.removeChild(c);
            } else {
                dropBlankText(c);
            }
            c = next;
        }
    }

    // No DOCTYPE: SVG 2 drops it, and browsers never read it.
    private static String write(Document doc) throws Exception {
        Transformer t = TransformerFactory.newDefaultInstance().newTransformer();
        t.setOutputProperty(OutputKeys.INDENT, "yes");
        t.setOutputProperty("{http://xml.apache.org/xslt}indent-amount", "1");
        t.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
        t.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");   // written below, on a line of its own
        StringWriter out = new StringWriter();
        t.transform(new DOMSource(doc), new StreamResult(out));
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + out.toString().replace("\r\n", "\n").strip() + "\n";
    }
}
