package org.mpi2nccl.kernel.mpj;

import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

import java.util.List;

/** The table {@code %mpj status} shows: one row per rank engine, where it runs and whether it is alive. */
final class EngineStatus {
    private EngineStatus() {
    }

    /** {@code liveState} is what a live engine is doing ("idle", "running a cell"); a dead one is "stopped". */
    static Table table(String title, List<RankEngines.Rank> ranks, boolean closed, String liveState) {
        IntColumn rank = IntColumn.create("rank");
        StringColumn host = StringColumn.create("host");
        LongColumn pid = LongColumn.create("pid");
        IntColumn local = IntColumn.create("local rank");
        StringColumn gpu = StringColumn.create("GPU");
        StringColumn state = StringColumn.create("state");
        for (RankEngines.Rank r : ranks) {
            rank.append(r.rank());
            host.append(r.host());
            pid.append(r.pid());
            local.append(r.localRank());
            gpu.append(r.gpuLabel());
            boolean alive = !closed && ProcessHandle.of(r.pid()).map(ProcessHandle::isAlive).orElse(false);
            state.append(alive ? liveState : "stopped");
        }
        return Table.create(title, rank, host, pid, local, gpu, state);
    }
}
