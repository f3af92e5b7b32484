package org.mpi2nccl.cli;

import org.mpi2nccl.launch.Converters;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CliTest {
    @Test
    void helpSucceedsAndUnknownSubcommandFails() {
        assertEquals(0, Main.run("--help"));
        assertNotEquals(0, Main.run("no-such-command"));
    }

    @Test
    void durationsParse() {
        assertEquals(Duration.ofSeconds(90), Converters.parseDuration("90s"));
        assertEquals(Duration.ofMinutes(5), Converters.parseDuration("5m"));
        assertEquals(Duration.ofMillis(500), Converters.parseDuration("500ms"));
        assertEquals(Duration.ofSeconds(7), Converters.parseDuration("7"));
        assertEquals(Duration.ofSeconds(30), Converters.parseDuration("PT30S"));
        assertEquals(Duration.ofHours(2), Converters.parseDuration("2h"));
        assertThrows(IllegalArgumentException.class, () -> Converters.parseDuration("soon"));
    }
}
