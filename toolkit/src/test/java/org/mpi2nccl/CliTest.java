package org.mpi2nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class CliTest {
    @Test
    void helpSucceedsAndUnknownSubcommandFails() {
        assertEquals(0, Cli.run("--help"));
        assertNotEquals(0, Cli.run("no-such-command"));
    }
}
