package org.mpi2nccl.lessons;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.IntPredicate;
import org.mpi2nccl.comm.Clique;
import org.mpi2nccl.comm.Communicator;
import org.mpi2nccl.comm.HostBuffer;
import org.mpi2nccl.comm.Reduction;

/**
 * The check of lesson 04's bootstrap exercise. The student's code gets a clique that notes what each rank does
 * (who calls uniqueId, which id and arguments reach initRank) and passes every call on. After the code ran on every
 * rank, the ranks exchange their notes over a host communicator, so each rank can explain a wrong bootstrap with
 * what the OTHER ranks did too: an id made on every rank, an id that never arrived, arguments in the wrong order.
 * Only a bootstrap that looks right is then tested: an all-reduce of rank + 1 on its communicator.
 */
final class Lesson04Bootstrap {
    // What one rank did, as ints (so that the ranks can all-gather it).
    private static final int STATUS = 0;       // 0 returned a communicator, 1 not written, 2 threw, 3 returned null
    private static final int MADE_IDS = 1;     // calls of uniqueId
    private static final int INITS = 2;        // calls of initRank
    private static final int ARG_SIZE = 3;
    private static final int ARG_RANK = 4;
    private static final int ID_HASH = 5;      // of the id passed to initRank
    private static final int ID_ZERO = 6;      // 1 if that id was all zero bytes
    private static final int FROM_INIT = 7;    // 1 if the communicator returned is the one initRank made
    private static final int MADE_HASH = 8;    // of the id uniqueId returned on this rank
    private static final int FIELDS = 9;

    private Lesson04Bootstrap() {
    }

    /** The clique the student's code gets: every call is noted, then passed on. */
    private static final class Noting implements Clique {
        final Clique real;
        final int[] note = new int[FIELDS];
        Communicator made;

        Noting(Clique real) {
            this.real = real;
        }

        @Override
        public byte[] uniqueId() {
            byte[] id = real.uniqueId();
            note[MADE_IDS]++;
            note[MADE_HASH] = Arrays.hashCode(id);
            return id;
        }

        @Override
        public Communicator initRank(int size, byte[] id, int rank) {
            note[INITS]++;
            note[ARG_SIZE] = size;
            note[ARG_RANK] = rank;
            note[ID_HASH] = Arrays.hashCode(id);
            note[ID_ZERO] = id != null && Arrays.equals(id, new byte[id.length]) ? 1 : 0;
            made = real.initRank(size, id, rank);
            return made;
        }

        @Override
        public String describe() {
            return real.describe();
        }
    }

    static Check check(Communicator world, Clique clique, Lesson04.Bootstrap bootstrap) {
        int rank = world.rank();
        int size = world.size();
        Noting noting = new Noting(clique);
        Communicator comm = null;
        String error = null;
        try {
            comm = bootstrap.bootstrap(noting);
            noting.note[STATUS] = comm == null ? 3 : 0;
            noting.note[FROM_INIT] = comm != null && comm == noting.made ? 1 : 0;
        } catch (UnsupportedOperationException e) {
            noting.note[STATUS] = 1;
        } catch (RuntimeException e) {
            noting.note[STATUS] = 2;
            error = firstLine(e);
        }
        int[] all = new int[FIELDS * size];
        world.allGather(HostBuffer.of(noting.note), HostBuffer.of(all));
        String title = "rank " + rank + " of " + size;
        try {
            String why = diagnose(all, size, rank, error);
            if (why != null) {
                return Check.wrong(title + ": the bootstrap is not right yet", why);
            }
            return allReduce(comm, rank, size, title);
        } finally {
            if (noting.made != null) {
                noting.made.close();
            }
        }
    }

    /** Why the bootstrap is wrong, from every rank's note; null if it looks right. Every rank gets the same reason. */
    static String diagnose(int[] all, int size, int rank, String error) {
        String mine = error == null ? "" : " The error on this rank: " + error;
        if (at(all, rank, STATUS) == 1) {
            return "not written yet: write the three steps (rank 0 makes the id, Bcast its bytes, initRank on every rank)"
                    + " and return the communicator initRank gives.";
        }
        int made = at(all, 0, MADE_HASH);
        List<Integer> extraIds = ranks(size, r -> r != 0 && at(all, r, MADE_IDS) > 0);
        List<Integer> other = ranks(size, r -> at(all, r, INITS) > 0 && at(all, r, ID_HASH) != made);
        List<Integer> threw = ranks(size, r -> at(all, r, STATUS) == 2);
        if (!extraIds.isEmpty() && (!other.isEmpty() || !threw.isEmpty())) {
            return "rank(s) " + extraIds + " made their own id with uniqueId(). Only rank 0 makes it; the other ranks receive"
                    + " rank 0's bytes. Each id names a different meeting place, so each rank waited for ranks that"
                    + " went elsewhere, until the timeout." + mine;
        }
        if (at(all, 0, MADE_IDS) == 0) {
            return "rank 0 never called uniqueId(): step 1 is rank 0 making the id that the others receive." + mine;
        }
        List<Integer> noInit = ranks(size, r -> at(all, r, INITS) == 0);
        if (!noInit.isEmpty()) {
            return "rank(s) " + noInit + " never called initRank: every rank joins, and initRank returns once all have"
                    + " (until then the others wait)." + mine;
        }
        List<Integer> zero = ranks(size, r -> at(all, r, ID_ZERO) == 1);
        if (!zero.isEmpty()) {
            return "rank(s) " + zero + " passed 128 zero bytes to initRank: rank 0's id never reached them. Broadcast it"
                    + " from root 0 after rank 0 made it and before initRank: MPI.COMM_WORLD.Bcast(id, 0, id.length,"
                    + " MPI.BYTE, 0), into the same array that initRank then gets." + mine;
        }
        if (!other.isEmpty()) {
            return "rank(s) " + other + " passed initRank an id other than the one rank 0 made: every rank must pass"
                    + " exactly rank 0's bytes, received with a broadcast from root 0." + mine;
        }
        List<Integer> badSize = ranks(size, r -> at(all, r, ARG_SIZE) != size);
        if (!badSize.isEmpty()) {
            int r = badSize.get(0);
            return String.format(Locale.ROOT, "rank %d called initRank with size %d and rank %d; the job has %d ranks. The"
                    + " order is initRank(size, id, rank), as ncclCommInitRank(&comm, nranks, id, rank): size first, the"
                    + " same on every rank.%s", r, at(all, r, ARG_SIZE), at(all, r, ARG_RANK), size, mine);
        }
        List<Integer> badRank = ranks(size, r -> at(all, r, ARG_RANK) != r);
        if (!badRank.isEmpty()) {
            int r = badRank.get(0);
            return "rank " + r + " joined as rank " + at(all, r, ARG_RANK) + ": each rank passes its own MPI rank (the"
                    + " variable rank), so that rank r of the communicator is MPI rank r." + mine;
        }
        if (!threw.isEmpty()) {
            return "rank(s) " + threw + " failed in the bootstrap although the steps look right." + mine;
        }
        List<Integer> notInit = ranks(size, r -> at(all, r, FROM_INIT) == 0);
        if (!notInit.isEmpty()) {
            return "rank(s) " + notInit + " returned " + (at(all, notInit.get(0), STATUS) == 3 ? "null" : "another"
                    + " communicator") + ": return the one initRank made.";
        }
        if (!extraIds.isEmpty()) {
            return "it works, because the broadcast overwrote their ids, but rank(s) " + extraIds + " also called"
                    + " uniqueId(). Only rank 0 should: on GPUs every ncclGetUniqueId starts a listener that nobody joins.";
        }
        return null;
    }

    /** The test of a bootstrap that looks right: rank + 1 all-reduced, compared with size (size + 1) / 2. */
    private static Check allReduce(Communicator comm, int rank, int size, String title) {
        if (comm.size() != size || comm.rank() != rank) {
            return Check.wrong(title, "the communicator says rank " + comm.rank() + " of " + comm.size() + ".");
        }
        float[] x = new float[1000];
        Arrays.fill(x, rank + 1);
        float want = size * (size + 1) / 2f;
        float[] got;
        try (Lesson04.Placed buf = Lesson04.place(comm, x)) {
            comm.allReduce(buf.buffer(), Reduction.SUM);
            comm.synchronize();
            got = buf.read();
        } catch (RuntimeException e) {
            return Check.wrong(title, "the communicator is made, but its all-reduce failed: " + firstLine(e));
        }
        for (float v : got) {
            if (v != want) {
                return Check.wrong(title, "the all-reduce of rank + 1 gave " + v + ", expected " + want + ".");
            }
        }
        return Check.right(title + " over " + comm.kind(), String.format(Locale.ROOT, "one id made on rank 0, its bytes"
                + " broadcast, initRank(%d, id, %d) on this rank; the all-reduce of rank + 1 gave %.0f on every element,"
                + " as expected (1 + ... + %d).", size, rank, want, size));
    }

    private static int at(int[] all, int rank, int field) {
        return all[rank * FIELDS + field];
    }

    private static List<Integer> ranks(int size, IntPredicate which) {
        List<Integer> out = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (which.test(r)) {
                out.add(r);
            }
        }
        return out;
    }

    /** An exception's message, first line, with its type when it has no message. */
    static String firstLine(Throwable e) {
        String m = e.getMessage();
        if (m == null || m.isBlank()) {
            return e.getClass().getSimpleName();
        }
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
