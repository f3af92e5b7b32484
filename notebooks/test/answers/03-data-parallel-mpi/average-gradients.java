%%mpj
void averageGradients(Module model) {
    for (Tensor p : model.parameters()) {
        float[] mine = p.grad().toArray(), sum = new float[mine.length];
        MPI.COMM_WORLD.Allreduce(mine, 0, sum, 0, mine.length, MPI.FLOAT, MPI.SUM);
        for (int i = 0; i < sum.length; i++) sum[i] /= size;
        p.grad().assign(NDArray.of(sum, p.grad().shape()));
    }
}
