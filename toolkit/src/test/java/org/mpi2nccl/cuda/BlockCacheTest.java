package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The block cache's rules without a GPU (blocks stand in for device memory): same-size reuse, the bound, and
 * eviction of the blocks given longest ago, so earlier work's large blocks cannot keep a training loop's
 * temporaries out of the cache (on an H200 a full GPU test suite left 1 GiB of them and a step allocated 22 times).
 */
class BlockCacheTest {
    private record Block(String name, long bytes) {}

    private final List<String> freed = new ArrayList<>();
    private final BlockCache<Block> cache = new BlockCache<>(100, Block::bytes, b -> freed.add(b.name()));

    @Test
    void aGivenBlockServesTheNextTakeOfItsSizeOnly() {
        Block a = new Block("a", 40);
        cache.give(a);
        assertNull(cache.take(41));
        assertSame(a, cache.take(40));
        assertNull(cache.take(40), "taken once");
        assertEquals(0, cache.cachedBytes());
        assertEquals(1, cache.hits());
    }

    @Test
    void aFullCacheFreesItsOldestBlocksToMakeRoom() {
        cache.give(new Block("old-big", 60));
        cache.give(new Block("old-small", 30));
        cache.give(new Block("step-temp", 20));   // 110 > 100: the oldest goes
        assertEquals(List.of("old-big"), freed);
        assertEquals(50, cache.cachedBytes());
        assertEquals("step-temp", cache.take(20).name());
        cache.give(new Block("new", 70));          // 30 + 70 fits
        assertEquals(List.of("old-big"), freed);
        cache.give(new Block("newer", 10));        // 110: old-small goes, not the newer "new"
        assertEquals(List.of("old-big", "old-small"), freed);
        assertEquals(80, cache.cachedBytes());
    }

    @Test
    void aBlockLargerThanTheBoundIsFreedAtOnceAndClearFreesEverything() {
        cache.give(new Block("kept", 50));
        cache.give(new Block("huge", 101));
        assertEquals(List.of("huge"), freed);
        assertEquals(50, cache.cachedBytes());
        cache.clear();
        assertEquals(List.of("huge", "kept"), freed);
        assertEquals(0, cache.cachedBytes());
        assertNull(cache.take(50));
    }
}
