%%mpj
void reduceScatter(float[] buf) {
    int seg = buf.length / size;               // segment j is buf[j*seg .. (j+1)*seg)
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    float[] out = new float[seg], in = new float[seg];
    for (int step = 0; step < size - 1; step++) {
        int sendSeg = Math.floorMod(rank - step - 1, size), recvSeg = Math.floorMod(rank - step - 2, size);
        System.arraycopy(buf, sendSeg * seg, out, 0, seg);
        MPI.COMM_WORLD.Sendrecv(out, 0, seg, MPI.FLOAT, right, 99, in, 0, seg, MPI.FLOAT, left, 99);
        for (int i = 0; i < seg; i++) {
            buf[recvSeg * seg + i] += in[i];
        }
    }
}
