package org.mpi2nccl.html;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mpi2nccl.html.HtmlTable.cell;
import static org.mpi2nccl.html.HtmlTable.rawCell;

import java.io.StringReader;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

class HtmlTableTest {
    private static final String NASTY = "a<b & \"c\" 'd' </td></tr></table><script>x</script>";

    /** The table read back by an XML parser: the builder writes no void elements, so its markup is well-formed. */
    private static Document parse(String html) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new InputSource(new StringReader(html)));
    }

    @Test
    void textInHeaderAndCellsIsEscapedAndReadsBackUnchanged() throws Exception {
        String html = new HtmlTable().header(NASTY, "b").row(cell(NASTY), cell("x & y")).html();
        assertFalse(html.contains("<script>"), html);
        assertTrue(html.contains("<th>a&lt;b &amp; &quot;c&quot; &#39;d&#39; &lt;/td&gt;"), html);
        assertTrue(html.contains("<td>x &amp; y</td>"), html);
        Document d = parse(html);
        assertEquals(NASTY, d.getElementsByTagName("th").item(0).getTextContent());
        assertEquals(NASTY, d.getElementsByTagName("td").item(0).getTextContent());
        assertEquals(2, d.getElementsByTagName("td").getLength(), "the text closed no cell and opened none");
        assertEquals(0, d.getElementsByTagName("script").getLength());
    }

    @Test
    void attributeValuesAreEscapedToo() throws Exception {
        String html = new HtmlTable().cssClass("t\" onclick=\"x").row(cell("1").cssClass("c\"><b>").colour("red\"")).html();
        Element table = parse(html).getDocumentElement();
        assertEquals("t\" onclick=\"x", table.getAttribute("class"));
        assertFalse(table.hasAttribute("onclick"), html);
        Element td = (Element) table.getElementsByTagName("td").item(0);
        assertEquals("c\"><b>", td.getAttribute("class"));
        assertEquals("color:red\"", td.getAttribute("style"));
        assertEquals(0, td.getElementsByTagName("b").getLength(), html);
    }

    @Test
    void onlyARawCellKeepsItsMarkup() throws Exception {
        String img = "<img src=\"data:image/png;base64,AAAA\"/>";
        String html = new HtmlTable().row(rawCell(img), cell(img)).html();
        assertTrue(html.contains("<td>" + img + "</td>"), html);
        assertTrue(html.contains("<td>&lt;img src=&quot;data:image/png;base64,AAAA&quot;/&gt;</td>"), html);
        assertEquals(1, parse(html).getElementsByTagName("img").getLength());
    }

    @Test
    void alignmentColourAndTopShareOneStyleAttribute() {
        String html = new HtmlTable()
                .header(List.of(cell("n").align(HtmlTable.Align.RIGHT), cell("name").align(HtmlTable.Align.LEFT)))
                .row(cell("12").align(HtmlTable.Align.RIGHT).top().colour("#cf222e"), cell("mpj").align(HtmlTable.Align.LEFT))
                .html();
        assertTrue(html.contains("<th style=\"text-align:right\">n</th><th style=\"text-align:left\">name</th>"), html);
        assertTrue(html.contains("<td style=\"text-align:right;vertical-align:top;color:#cf222e\">12</td>"), html);
        assertTrue(html.contains("<td style=\"text-align:left\">mpj</td>"), html);
    }

    @Test
    void aPlainCellHasNoAttributesAndNullShowsAsNothing() {
        String html = new HtmlTable().header("h").row(cell(null), cell("v").bold()).html();
        assertEquals("<table><thead><tr><th>h</th></tr>\n</thead><tbody><tr><td></td><td><b>v</b></td></tr>\n"
                + "</tbody></table>", html);
    }

    @Test
    void withoutAHeaderThereIsNoHeadAndEachRowIsOneRow() throws Exception {
        HtmlTable t = new HtmlTable().style("font-family:monospace");
        for (int i = 0; i < 3; i++) t.row(cell("r" + i), cell("&"));
        String html = t.html();
        assertTrue(html.startsWith("<table style=\"font-family:monospace\"><tbody>"), html);
        assertFalse(html.contains("<thead>"), html);
        assertEquals(3, t.rowCount());
        NodeList rows = parse(html).getElementsByTagName("tr");
        assertEquals(3, rows.getLength());
        assertEquals("r2&", rows.item(2).getTextContent());
    }

    @Test
    void aCellsSettersLeaveTheCellTheyStartFromAsItWas() {
        HtmlTable.Cell plain = cell("x");
        HtmlTable.Cell styled = plain.cssClass("pass").bold();
        String html = new HtmlTable().row(plain, styled).html();
        assertTrue(html.contains("<td>x</td><td class=\"pass\"><b>x</b></td>"), html);
    }
}
