package org.mpi2nccl.kernel.render;

import io.github.spencerpark.jupyter.kernel.display.DisplayData;
import io.github.spencerpark.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.autograd.Tensor;
import org.mpi2nccl.kernel.output.Display;
import org.mpi2nccl.tensor.Device;
import org.mpi2nccl.tensor.NDArray;

import static org.junit.jupiter.api.Assertions.*;

class ArrayRendererTest {
    @Test
    void aBigArrayShowsItsShapeAndCorners() {
        try (NDArray a = NDArray.arange(Device.cpu(), 10_000); NDArray m = a.reshape(100, 100)) {
            DisplayData d = Display.render(m);
            String html = d.getData(MIMEType.TEXT_HTML).toString();
            assertTrue(html.contains("NDArray [100, 100] float32 on cpu"), html);
            for (String v : new String[] {">0<", ">1<", ">2<", ">97<", ">99<", ">9900<", ">9999<"}) {
                assertTrue(html.contains(v), v + " in " + html);
            }
            assertFalse(html.contains(">50<"), "the middle is left out");
            assertTrue(html.contains("…") && html.contains("⋮"), html);
            assertEquals(7, html.split("<tr>", -1).length - 1, "3 rows, a row of ellipses, 3 rows");
            String text = d.getData(MIMEType.TEXT_PLAIN).toString();
            assertTrue(text.startsWith("NDArray [100, 100] float32 on cpu\n"), text);
            assertTrue(text.contains("9999"), text);
        }
    }

    @Test
    void aSmallArrayShowsEveryValueAndATensorSaysSo() {
        try (NDArray a = NDArray.of(new float[] {0.5f, 1.25f, -3f}, 3)) {
            String text = Display.render(a).getData(MIMEType.TEXT_PLAIN).toString();
            assertTrue(text.contains("0.5") && text.contains("1.25") && text.contains("-3"), text);
            Tensor t = Tensor.parameter(a);
            String html = Display.render(t).getData(MIMEType.TEXT_HTML).toString();
            assertTrue(html.contains("Tensor (requires grad) [3] float32 on cpu"), html);
        }
    }

    @Test
    void aThreeAxisArrayIsShownAsRowsOfItsLastAxis() {
        try (NDArray a = NDArray.arange(Device.cpu(), 24); NDArray m = a.reshape(2, 3, 4)) {
            String text = Display.render(m).getData(MIMEType.TEXT_PLAIN).toString();
            assertTrue(text.contains("shown as 6 rows of the last axis"), text);
            assertTrue(text.contains("23"), text);
        }
    }
}
