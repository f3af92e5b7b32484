package org.mpi2nccl.kernel.jshell;

/**
 * What a cell evaluated to: nothing (the last snippet was a statement or a declaration) or one object, which
 * may be {@code null}. Jupyter shows the object as the cell's result.
 */
public record CellValue(boolean present, Object value) {
    public static final CellValue NONE = new CellValue(false, null);

    public static CellValue of(Object value) {
        return new CellValue(true, value);
    }
}
