package org.mpi2nccl.lessons;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.mpi2nccl.bench.SpeedupExperiment;

/** The lessons' length: what the variable accepts, and what a short run of lesson 05 leaves out. */
class LessonLengthTest {
    @Test
    void fullUnlessSaidShortAndAnUnknownValueIsNamed() {
        assertEquals(LessonLength.FULL, LessonLength.parse(null, LessonLength.VARIABLE));
        assertEquals(LessonLength.FULL, LessonLength.parse(" ", LessonLength.VARIABLE));
        assertEquals(LessonLength.FULL, LessonLength.parse("Full", LessonLength.VARIABLE));
        assertEquals(LessonLength.SHORT, LessonLength.parse("short", LessonLength.VARIABLE));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> LessonLength.parse("quick", LessonLength.VARIABLE));
        assertTrue(e.getMessage().startsWith("MPI2NCCL_LESSON_LENGTH=quick is not a lesson length: use full"), e.getMessage());
        assertEquals("", LessonLength.FULL.note());
        assertTrue(LessonLength.SHORT.note().contains("MPI2NCCL_LESSON_LENGTH=short"));
    }

    @Test
    void aShortLesson05RunsOneRoundOfFewerStepsOverTheSameRoutes() {
        SpeedupExperiment full = Lesson05.liveExperiment(LessonLength.FULL);
        SpeedupExperiment brief = Lesson05.liveExperiment(LessonLength.SHORT);
        assertEquals(Lesson05.ROUNDS, full.rounds());
        assertEquals(1, brief.rounds());
        assertEquals(full.routes(), brief.routes(), "the same routes, so every cell's code still runs");
        assertTrue(brief.config().epochs >= 2, "two epochs at least: the accuracy cell compares epochs");
        assertTrue(brief.config().epochs * examples(brief) < full.config().epochs * examples(full));
        assertTrue(brief.config().warmupSteps() < full.config().warmupSteps());
    }

    /** Training examples per epoch (0 in the settings is the whole Fashion-MNIST training set). */
    private static long examples(SpeedupExperiment e) {
        return e.config().trainExamples == 0 ? 60_000 : e.config().trainExamples;
    }
}
