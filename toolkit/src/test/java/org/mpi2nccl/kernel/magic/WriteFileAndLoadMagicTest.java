package org.mpi2nccl.kernel.magic;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** %%writefile's three verbs, UTF-8 and mistakes; %load of what it wrote (basekernel's Load) and of nothing. */
class WriteFileAndLoadMagicTest {
    @TempDir
    Path tmp;

    private String writefile(List<String> args, String body) throws Exception {
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        WriteFileMagic.writefile(args, body, new PrintStream(said, true, StandardCharsets.UTF_8));
        return said.toString(StandardCharsets.UTF_8);
    }

    @Test
    void writesOverwritesAndAppendsInUtf8() throws Exception {
        Path f = tmp.resolve("new/folder/notes.jsh");
        assertEquals("Writing " + f + "\n", writefile(List.of(f.toString()), "String s = \"∑ é\";"));
        assertEquals("String s = \"∑ é\";\n", Files.readString(f, StandardCharsets.UTF_8));
        assertEquals("Overwriting " + f + "\n", writefile(List.of(f.toString()), "int a = 1;\n"));
        assertEquals("Appending to " + f + "\n", writefile(List.of("-a", f.toString()), "int b = 2;\n"));
        assertEquals("int a = 1;\nint b = 2;\n", Files.readString(f, StandardCharsets.UTF_8));
    }

    @Test
    void mistakesAreOneLine() {
        String none = assertThrows(IllegalArgumentException.class, () -> writefile(List.of(), "x")).getMessage();
        assertTrue(none.startsWith("%%writefile takes one file name"), none);
        String folder = assertThrows(IllegalArgumentException.class, () -> writefile(List.of(tmp.toString()), "x"))
                .getMessage();
        assertTrue(folder.contains(tmp + " is a folder"), folder);
    }

    @Test
    void loadRunsTheFileAsACellAndNamesAMissingOne() throws Exception {
        Path f = tmp.resolve("helpers.jsh");
        writefile(List.of(f.toString()), "int twice(int x) { return 2 * x; }");
        List<String> ran = new ArrayList<>();
        LoadMagic load = new LoadMagic(ran::add);
        load.load(List.of(tmp.resolve("helpers").toString()));   // the extension left out
        assertEquals(List.of("int twice(int x) { return 2 * x; }\n"), ran);
        String missing = assertThrows(IllegalArgumentException.class,
                () -> load.load(List.of(tmp.resolve("nope.jsh").toString()))).getMessage();
        assertTrue(missing.startsWith("%load: no file '" + tmp.resolve("nope.jsh") + "'"), missing);
        assertFalse(missing.contains("\n"));
        String noArg = assertThrows(IllegalArgumentException.class, () -> load.load(List.of())).getMessage();
        assertTrue(noArg.startsWith("%load takes one file"), noArg);
    }
}
