package org.mpi2nccl.parallel.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.parallel.timing.TimelineEvent.Kind;

/**
 * A step replayed from CUDA graphs never tells a {@link Timeline} it started, yet it may launch buckets (or record a
 * new graph) through the hooks the timeline listens to. Those calls come after the last recorded step's optimizer:
 * they belong to no recorded step and must not be kept, or a long training would grow the timeline at every replay.
 */
class TimelineStepEndTest {
    @Test
    void hooksAfterTheOptimizerWithoutANewStepAreNotKept() {
        Timeline tl = new Timeline(0, 2, System.nanoTime());
        tl.stepStarted();
        tl.forwardDone();
        tl.bucketLaunched(0);
        tl.allReduced(null, HostBuffer.of(new float[4]), 1_000);
        tl.backwardDone();
        tl.gradientsAveraged();
        tl.optimizerDone();
        List<TimelineEvent> oneStep = tl.events();
        assertEquals(List.of(Kind.FORWARD, Kind.BUCKET_READY, Kind.ALL_REDUCE, Kind.BACKWARD, Kind.WAIT, Kind.OPTIMIZER),
                oneStep.stream().map(TimelineEvent::kind).toList(), "the recorded step: " + oneStep);
        for (int replay = 0; replay < 3; replay++) {         // replays between the hooks: no stepStarted
            tl.bucketLaunched(0);
            tl.allReduced(null, HostBuffer.of(new float[4]), 1_000);
        }
        assertEquals(oneStep, tl.events(), "nothing kept outside a step");
        tl.stepStarted();                                    // the next eager step is recorded again (step 1 of 2)
        tl.forwardDone();
        assertEquals(1, tl.events().get(tl.events().size() - 1).step(), "the next step heard is step 1");
    }
}
