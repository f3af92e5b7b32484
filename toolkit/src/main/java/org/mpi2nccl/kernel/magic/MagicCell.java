package org.mpi2nccl.kernel.magic;

import io.github.spencerpark.jupyter.kernel.magic.CellMagicParseContext;
import io.github.spencerpark.jupyter.kernel.magic.LineMagicArgs;
import io.github.spencerpark.jupyter.kernel.magic.MagicParser;

import java.util.ArrayList;
import java.util.List;

/**
 * A cell cut into what the kernel does itself and what JShell evaluates, with IJava's rules (basekernel's
 * parser): a cell whose first line is {@code %%name args} is a cell magic (the rest of the cell is its body);
 * otherwise every line that starts with {@code %name} is a line magic, run in order between the code around it.
 */
public final class MagicCell {
    /** One piece of a cell: Java code, or a line magic. */
    public sealed interface Part permits Code, LineMagic {
    }

    /** Java code that starts on line {@code firstLine} of the cell (line magics before it are lines too). */
    public record Code(String source, int firstLine) implements Part {
    }

    public record LineMagic(String name, List<String> args) implements Part {
    }

    /** A cell magic: its name, its arguments and the rest of the cell. */
    public record CellMagic(String name, List<String> args, String body) {
    }

    private static final MagicParser PARSER = new MagicParser();
    private static final String MARK = "\u0000magic#";

    private MagicCell() {
    }

    /** The cell magic this cell is, or null. */
    public static CellMagic cellMagic(String cell) {
        CellMagicParseContext ctx = PARSER.parseCellMagic(cell);
        if (ctx == null) {
            return null;
        }
        return new CellMagic(ctx.getMagicCall().getName(), ctx.getMagicCall().getArgs(), ctx.getMagicCall().getBody());
    }

    /** The cell as code and line magics, in order (blank code between magics is left out). */
    public static List<Part> parts(String cell) {
        List<LineMagic> magics = new ArrayList<>();
        String marked = PARSER.transformLineMagics(cell, ctx -> {
            LineMagicArgs call = ctx.getMagicCall();
            magics.add(new LineMagic(call.getName(), call.getArgs()));
            return MARK + (magics.size() - 1);
        });
        List<Part> parts = new ArrayList<>();
        StringBuilder code = new StringBuilder();
        int lineNo = 0;
        int codeStart = 1;
        for (String line : marked.split("\n", -1)) {
            lineNo++;
            if (line.startsWith(MARK)) {
                addCode(parts, code, codeStart);
                parts.add(magics.get(Integer.parseInt(line.substring(MARK.length()).trim())));
                codeStart = lineNo + 1;
            } else {
                code.append(line).append('\n');
            }
        }
        addCode(parts, code, codeStart);
        return parts;
    }

    private static void addCode(List<Part> parts, StringBuilder code, int firstLine) {
        if (!code.toString().isBlank()) {
            parts.add(new Code(code.toString(), firstLine));
        }
        code.setLength(0);
    }
}
