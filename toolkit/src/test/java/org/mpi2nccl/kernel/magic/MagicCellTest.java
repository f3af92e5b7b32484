package org.mpi2nccl.kernel.magic;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class MagicCellTest {
    @Test
    void cellMagicTakesTheRestOfTheCell() {
        MagicCell.CellMagic m = MagicCell.cellMagic("%%mpj -np 2\nint x = rank;\nx");
        assertEquals("mpj", m.name());
        assertEquals(List.of("-np", "2"), m.args());
        assertEquals("int x = rank;\nx", m.body());
        assertNull(MagicCell.cellMagic("int y = 1;\n%%mpj"));
    }

    @Test
    void lineMagicsRunBetweenTheCodeAroundThem() {
        List<MagicCell.Part> parts = MagicCell.parts("int a = 1;\n%jars lib/*.jar\n\n%mpj start -np 4\na + 1");
        assertEquals(4, parts.size());
        assertEquals("int a = 1;\n", ((MagicCell.Code) parts.get(0)).source());
        assertEquals(new MagicCell.LineMagic("jars", List.of("lib/*.jar")), parts.get(1));
        assertEquals(new MagicCell.LineMagic("mpj", List.of("start", "-np", "4")), parts.get(2));
        assertEquals("a + 1\n", ((MagicCell.Code) parts.get(3)).source());
    }

    @Test
    void percentInsideJavaIsNotAMagic() {
        List<MagicCell.Part> parts = MagicCell.parts("int m = 7 % 3;\nString s = \"%d\";");
        assertEquals(1, parts.size());
        assertInstanceOf(MagicCell.Code.class, parts.get(0));
    }

    @Test
    void percentMpjWithCodeBelowItIsRefusedAsAMisspelledCellMagic() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MpjMagics.refuseLineFormWithCode(MagicCell.parts("%mpj\nint x = rank;\nx")));
        assertTrue(e.getMessage().contains("start the cell with %%mpj (two %)"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> MpjMagics.refuseLineFormWithCode(MagicCell.parts("%mpj -np 2\nrank")));
        // an action, or nothing below: a line magic as meant
        MpjMagics.refuseLineFormWithCode(MagicCell.parts("%mpj start -np 4\nint a = 1;"));
        MpjMagics.refuseLineFormWithCode(MagicCell.parts("%mpj"));
        MpjMagics.refuseLineFormWithCode(MagicCell.parts("int a = 1;\n%mpj status"));
    }
}
