package org.mpi2nccl.tensor;

import org.mpi2nccl.tensor.cpu.CpuBackend;

/**
 * The contract against a backend that implements only the abstract methods (forwarding to the CPU), so the
 * composed default implementations of binaryBroadcast, channelSums and channelAffine are checked too — a
 * new backend may rely on them before it has kernels of its own.
 */
class DefaultMethodsContractTest extends BackendContractTest {

    @Override
    protected Device device() { return Device.cpu(); }

    @Override
    protected Backend backendUnderTest() { return new OnlyAbstractMethods(CpuBackend.instance()); }

    private record OnlyAbstractMethods(Backend d) implements Backend {
        public Device device() { return d.device(); }
        public String describe() { return "abstract methods only, over " + d.describe(); }
        public Storage allocate(long n) { return d.allocate(n); }
        public long liveElements() { return d.liveElements(); }
        public void copyFromHost(float[] src, int so, Storage dst, long dof, int n) { d.copyFromHost(src, so, dst, dof, n); }
        public void copyToHost(Storage src, long so, float[] dst, int dof, int n) { d.copyToHost(src, so, dst, dof, n); }
        public void copy(Storage src, long so, Storage dst, long dof, long n) { d.copy(src, so, dst, dof, n); }
        public void fill(Storage dst, long o, long n, float v) { d.fill(dst, o, n, v); }
        public void copyStrided(Storage src, long so, long[] ss, Storage dst, long dof, long[] ds, int[] shape) { d.copyStrided(src, so, ss, dst, dof, ds, shape); }
        public void fillStrided(Storage dst, long o, long[] st, int[] shape, float v) { d.fillStrided(dst, o, st, shape, v); }
        public void unary(UnaryOp op, Storage a, Storage out, long n) { d.unary(op, a, out, n); }
        public void binary(BinaryOp op, Storage a, Storage b, Storage out, long n) { d.binary(op, a, b, out, n); }
        public void binaryScalar(BinaryOp op, Storage a, float s, Storage out, long n) { d.binaryScalar(op, a, s, out, n); }
        public void reduce(ReduceOp op, Storage a, Storage out, long o, long r, long i) { d.reduce(op, a, out, o, r, i); }
        public void matmul(Storage a, Storage b, Storage out, int batch, int m, int n, int k, boolean ta, boolean tb, long sa, long sb) {
            d.matmul(a, b, out, batch, m, n, k, ta, tb, sa, sb);
        }
        public void im2col(Storage x, Storage cols, ConvGeometry g) { d.im2col(x, cols, g); }
        public void col2im(Storage cols, Storage dx, ConvGeometry g) { d.col2im(cols, dx, g); }
        public void maxPool2d(Storage x, Storage out, ConvGeometry g) { d.maxPool2d(x, out, g); }
        public void maxPool2dBackward(Storage x, Storage dy, Storage dx, ConvGeometry g) { d.maxPool2dBackward(x, dy, dx, g); }
        public void oneHot(Storage labels, Storage out, long n, int classes) { d.oneHot(labels, out, n, classes); }
        public void fillUniform(Storage out, long n, float lo, float hi, long seed, long c) { d.fillUniform(out, n, lo, hi, seed, c); }
        public void fillNormal(Storage out, long n, float m, float s, long seed, long c) { d.fillNormal(out, n, m, s, seed, c); }
        public void sgdStep(Storage p, Storage g, Storage v, long n, float lr, float mom, float wd) { d.sgdStep(p, g, v, n, lr, mom, wd); }
        public void adamStep(Storage p, Storage g, Storage m, Storage v, long n, float lr, float b1, float b2, float eps, float wd, long step) {
            d.adamStep(p, g, m, v, n, lr, b1, b2, eps, wd, step);
        }
        public void batchNormForward(Storage x, Storage g, Storage b, Storage y, Storage m, Storage i, Storage rm, Storage rv,
                                     long o, long c, long in, float eps, float mom) {
            d.batchNormForward(x, g, b, y, m, i, rm, rv, o, c, in, eps, mom);
        }
        public void batchNormBackward(Storage dy, Storage x, Storage m, Storage i, Storage g, Storage dx, Storage dg, Storage db,
                                      long o, long c, long in) {
            d.batchNormBackward(dy, x, m, i, g, dx, dg, db, o, c, in);
        }
        public void softmaxCrossEntropy(Storage l, Storage y, Storage loss, long r, int c) { d.softmaxCrossEntropy(l, y, loss, r, c); }
        public void softmaxCrossEntropyBackward(Storage l, Storage y, Storage u, Storage g, long r, int c) {
            d.softmaxCrossEntropyBackward(l, y, u, g, r, c);
        }
        public void addBatchMetrics(Storage l, Storage y, Storage loss, Storage s, long r, int c) { d.addBatchMetrics(l, y, loss, s, r, c); }
        public void synchronize() { d.synchronize(); }
    }
}
