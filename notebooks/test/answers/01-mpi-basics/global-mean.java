%%mpj
double[] sumAndCount = {Arrays.stream(local).sum(), local.length}, totals = new double[2];
MPI.COMM_WORLD.Allreduce(sumAndCount, 0, totals, 0, 2, MPI.DOUBLE, MPI.SUM);
double globalMean = totals[0] / totals[1];
