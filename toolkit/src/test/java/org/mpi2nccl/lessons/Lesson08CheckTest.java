package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Lesson 08's check of pickInterface: the reference passes, the usual wrong answers get a hint that names them. */
class Lesson08CheckTest {
    /** The reference answer, as the notebook has it. */
    static String reference(Map<String, String> interfaces, String peer) {
        int p = Lesson08.ipv4(peer);
        for (var e : interfaces.entrySet()) {
            String[] cidr = e.getValue().split("/");
            int bits = Integer.parseInt(cidr[1]);
            int mask = bits == 0 ? 0 : -1 << (32 - bits);
            if ((Lesson08.ipv4(cidr[0]) & mask) == (p & mask)) return e.getKey();
        }
        return null;
    }

    @Test
    void theReferenceIsRight() {
        Check c = Lesson08.checkPickInterface(Lesson08CheckTest::reference);
        assertTrue(c.passed(), c.toString());
    }

    @Test
    void theFirstInterfaceThatIsNotLoopbackIsNCCLsOwnMistake() {
        Check c = Lesson08.checkPickInterface((m, p) -> m.keySet().stream().filter(n -> !n.equals("lo")).findFirst().orElse(null));
        assertFalse(c.passed());
        assertTrue(c.title().contains("you chose eth0") && !c.toString().contains("right one"), "the right one is not given away: " + c);
        assertTrue(c.explanation().contains("Network is unreachable") && c.explanation().contains("not the first one"), c.explanation());
    }

    @Test
    void comparingThreeBytesMissesASlash16() {
        Check c = Lesson08.checkPickInterface((m, p) -> {
            for (var e : m.entrySet()) {
                String a = e.getValue().split("/")[0];
                if (a.substring(0, a.lastIndexOf('.')).equals(p.substring(0, p.lastIndexOf('.')))) return e.getKey();
            }
            return null;
        });
        assertFalse(c.passed());
        assertTrue(c.title().startsWith("case 3"), c.title());
        assertTrue(c.explanation().contains("/16 keeps 16 bits") || c.explanation().contains("network parts"), c.explanation());
    }

    @Test
    void aSlash0MaskedByAShiftOf32IsExplained() {
        Check c = Lesson08.checkPickInterface((m, p) -> {
            for (var e : m.entrySet()) {
                String[] cidr = e.getValue().split("/");
                int mask = -1 << (32 - Integer.parseInt(cidr[1]));        // -1 << 32 is -1 in Java
                if ((Lesson08.ipv4(cidr[0]) & mask) == (Lesson08.ipv4(p) & mask)) return e.getKey();
            }
            return null;
        });
        assertFalse(c.passed(), c.toString());
        assertTrue(c.title().startsWith("case 5") && c.explanation().contains("-1 << 32 is -1"), c.toString());
        assertFalse(c.toString().contains("wg0's network"), "the hint does not name the right interface: " + c);
    }

    @Test
    void loopbackAndBlankAndCrashingAnswersAreExplained() {
        Check lo = Lesson08.checkPickInterface((m, p) -> "lo");
        assertTrue(lo.explanation().contains("Connection refused"), lo.explanation());
        Check blank = Lesson08.checkPickInterface((m, p) -> {
            throw new UnsupportedOperationException("write pickInterface");
        });
        assertEquals("pickInterface: not written yet", blank.title());
        Check crash = Lesson08.checkPickInterface((m, p) -> m.get("nope").trim());
        assertTrue(crash.title().startsWith("pickInterface threw java.lang.NullPointerException"), crash.title());
        Check always = Lesson08.checkPickInterface((m, p) -> {
            String r = reference(m, p);
            return r == null ? "eth0" : r;
        });
        assertTrue(always.title().startsWith("case 4") && always.explanation().contains("return null"), always.toString());
    }

    @Test
    void addressesAndNetworks() {
        assertEquals(0x0AD30002, Lesson08.ipv4("10.211.0.2"));
        assertTrue(Lesson08.contains("10.1.0.5/16", "10.1.7.9"));
        assertFalse(Lesson08.contains("10.0.0.5/24", "10.0.1.5"));
        assertTrue(Lesson08.contains("0.0.0.0/0", "8.8.8.8"));
        assertEquals(Map.of("lo", "127.0.0.1/8", "eth0", "172.31.1.1/24", "eth1", "10.211.0.2/24"), Lesson08.interfaces(null, 1));
    }
}
