package org.mpi2nccl.kernel.jshell;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Calls that would end the kernel's JVM, or MPJ's set-up in a rank cell, are refused from the source; text is not. */
class CellGuardTest {
    @Test
    void exitAndHaltAreRefusedWithTheirLine() {
        CellError e = assertThrows(CellError.class, () -> CellGuard.checkNoExit("int a = 1;\nif (a > 0) System . exit (a);", 1));
        assertTrue(e.getMessage().startsWith("System.exit is not allowed in a cell: the kernel keeps running"), e.getMessage());
        assertEquals(List.of("line 2: if (a > 0) System . exit (a);"), e.traceback());
        e = assertThrows(CellError.class, () -> CellGuard.checkNoExit("java.lang.Runtime.getRuntime().halt(0);", 1));
        assertTrue(e.getMessage().startsWith("Runtime.halt is not allowed"), e.getMessage());
        assertThrows(CellError.class, () -> CellGuard.checkNoExit("Runtime.getRuntime()\n    .exit(2);", 1));
    }

    @Test
    void stringsCommentsAndOtherNamesAreNotCalls() {
        assertDoesNotThrow(() -> CellGuard.checkNoExit("String s = \"System.exit(0)\"; char q = '\"'; // System.exit(1)\n"
                + "/* Runtime.getRuntime().halt(0) */ String t = \"\"\"\n  System.exit(2)\n  \"\"\"; mySystem.exit(3); exitCode(4);", 1));
    }

    @Test
    void mpiInitAndFinalizeInARankCellAreExplained() {
        CellError e = assertThrows(CellError.class, () -> CellGuard.checkNoMpiLifecycle("MPI.Init(args);", 2));
        assertTrue(e.getMessage().contains("ranks are already initialised in an engine: use MPI.COMM_WORLD"), e.getMessage());
        e = assertThrows(CellError.class, () -> CellGuard.checkNoMpiLifecycle("int r = rank;\nMPI.Finalize();", 2));
        assertTrue(e.getMessage().contains("the engine finalizes MPI when it stops: %mpj stop"), e.getMessage());
        assertEquals(List.of("line 3: MPI.Finalize();"), e.traceback());
        assertDoesNotThrow(() -> CellGuard.checkNoMpiLifecycle("// MPI.Init(args)\nint n = MPI.COMM_WORLD.Size();", 2));
    }
}
