%%mpj
int[] mine = {myBatches}, fewest = new int[1];
MPI.COMM_WORLD.Allreduce(mine, 0, fewest, 0, 1, MPI.INT, MPI.MIN);
int steps = fewest[0];
