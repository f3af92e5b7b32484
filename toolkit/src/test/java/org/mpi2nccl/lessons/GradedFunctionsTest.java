package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The grading's own cases for lessons 04, 05 and 08: the lesson's right answer gives exactly what the grader
 * computes, the usual wrong answers do not, and two gradings draw different cases.
 */
class GradedFunctionsTest {
    private static final long SEED = 8_675_309L;

    @Test
    void theBusBandwidthFormulaMatchesAndItsUsualMistakesDoNot() {
        double[] want = GradedFunctions.busBandwidthAnswer(SEED);
        assertArrayEquals(want, GradedFunctions.busBandwidthOf((b, s, n) -> b / s / 1e9 * 2 * (n - 1) / n, SEED), 1e-9 * max(want));
        assertFalse(Arrays.equals(want, GradedFunctions.busBandwidthOf((b, s, n) -> b / s / 1e9, SEED)), "algbw is not busbw");
        assertFalse(Arrays.equals(want, GradedFunctions.busBandwidthOf((b, s, n) -> b / s / 1e9 * 2 * ((n - 1) / n), SEED)),
                "integer (n - 1) / n is 0");
        assertFalse(Arrays.equals(want, GradedFunctions.busBandwidthAnswer(SEED + 1)), "another grading, other cases");
    }

    @Test
    void theSpeedupModelMatchesTheLessonsAndAnotherModelDoesNot() {
        double[] want = GradedFunctions.speedupModelAnswer(SEED);
        assertArrayEquals(want, GradedFunctions.speedupModelOf(Lesson05::reference, SEED), 0);
        double[] naive = GradedFunctions.speedupModelOf((tc, ta) -> 2.0, SEED);
        assertFalse(Arrays.equals(want, naive), "two ranks are not simply twice as fast");
    }

    @Test
    void theInterfaceChoiceMatchesAndTheFirstNonLoopbackDoesNot() {
        double[] want = GradedFunctions.pickInterfaceAnswer(SEED);
        assertArrayEquals(want, GradedFunctions.pickInterfaceOf(GradedFunctionsTest::holding, SEED), 0);
        boolean differs = false;
        for (long s = SEED; s < SEED + 5; s++) {
            double[] first = GradedFunctions.pickInterfaceOf((ifs, peer) -> ifs.keySet().stream().filter(n -> !n.equals("lo"))
                    .findFirst().orElse(null), s);
            differs |= !Arrays.equals(GradedFunctions.pickInterfaceAnswer(s), first);
        }
        assertTrue(differs, "NCCL's own default choice is caught");
    }

    /** The interface whose network holds the peer (a right answer, written apart from the lesson's). */
    private static String holding(Map<String, String> interfaces, String peer) {
        for (var e : interfaces.entrySet()) {
            String[] cidr = e.getValue().split("/");
            int bits = Integer.parseInt(cidr[1]);
            long mask = bits == 0 ? 0 : (0xFFFFFFFFL << (32 - bits)) & 0xFFFFFFFFL;
            if ((Integer.toUnsignedLong(Lesson08.ipv4(cidr[0])) & mask) == (Integer.toUnsignedLong(Lesson08.ipv4(peer)) & mask)) {
                return e.getKey();
            }
        }
        return null;
    }

    private static double max(double[] a) {
        return Arrays.stream(a).map(Math::abs).max().orElse(1);
    }
}
