package org.mpi2nccl.autograd;

import org.mpi2nccl.tensor.NDArray;

/** Elementwise operations (NumPy broadcasting for two operands) and their derivatives. */
final class Ops {
    private Ops() {}

    /** Base for two-operand ops: remembers the inputs and their shapes. */
    abstract static class Binary extends Function {
        NDArray a, b;

        @Override
        protected NDArray forward(NDArray... in) {
            a = in[0];
            b = in[1];
            return compute(a, b);
        }

        abstract NDArray compute(NDArray a, NDArray b);
    }

    static final class Add extends Binary {
        NDArray compute(NDArray a, NDArray b) { return a.add(b); }

        protected NDArray[] backward(NDArray g) {
            return new NDArray[] {needsGrad(0) ? Grads.sumTo(g, a.shape()) : null, needsGrad(1) ? Grads.sumTo(g, b.shape()) : null};
        }
    }

    static final class Sub extends Binary {
        NDArray compute(NDArray a, NDArray b) { return a.sub(b); }

        protected NDArray[] backward(NDArray g) {
            NDArray gb = null;
            if (needsGrad(1)) {
                try (NDArray n = g.neg()) { gb = Grads.sumTo(n, b.shape()); if (gb == n) gb = n.compact(); }
            }
            return new NDArray[] {needsGrad(0) ? Grads.sumTo(g, a.shape()) : null, gb};
        }
    }

    static final class Mul extends Binary {
        NDArray compute(NDArray a, NDArray b) { return a.mul(b); }

        protected NDArray[] backward(NDArray g) {
            return new NDArray[] {needsGrad(0) ? reduced(g.mul(b), a.shape()) : null, needsGrad(1) ? reduced(g.mul(a), b.shape()) : null};
        }
    }

    static final class Div extends Binary {
        NDArray compute(NDArray a, NDArray b) { return a.div(b); }

        protected NDArray[] backward(NDArray g) {
            NDArray ga = needsGrad(0) ? reduced(g.div(b), a.shape()) : null;
            NDArray gb = null;
            if (needsGrad(1)) {
                // d(a/b)/db = -a / b^2
                try (NDArray b2 = b.square(); NDArray q = a.div(b2); NDArray nq = q.neg()) {
                    gb = reduced(g.mul(nq), b.shape());
                }
            }
            return new NDArray[] {ga, gb};
        }
    }

    static final class Pow extends Binary {
        NDArray out;

        NDArray compute(NDArray a, NDArray b) { return out = a.pow(b); }

        protected NDArray[] backward(NDArray g) {
            NDArray ga = null, gb = null;
            if (needsGrad(0)) {
                // b * a^(b-1)
                try (NDArray bm1 = b.sub(1f); NDArray p = a.pow(bm1); NDArray d = p.mul(b)) {
                    ga = reduced(g.mul(d), a.shape());
                }
            }
            if (needsGrad(1)) {
                // a^b * ln a
                try (NDArray la = a.log(); NDArray d = out.mul(la)) {
                    gb = reduced(g.mul(d), b.shape());
                }
            }
            return new NDArray[] {ga, gb};
        }
    }

    /** sumTo of a fresh array, closing the full-size one when a reduced copy replaces it. */
    static NDArray reduced(NDArray fresh, int[] shape) {
        NDArray r = Grads.sumTo(fresh, shape);
        if (r != fresh) fresh.close();
        return r;
    }

    // ---- one operand ------------------------------------------------------------------------------------------

    abstract static class Unary extends Function {
        NDArray a, out;

        @Override
        protected NDArray forward(NDArray... in) {
            a = in[0];
            return out = compute(a);
        }

        abstract NDArray compute(NDArray a);
    }

    static final class AddScalar extends Unary {
        final float s;
        AddScalar(float s) { this.s = s; }
        NDArray compute(NDArray a) { return a.add(s); }
        protected NDArray[] backward(NDArray g) { return new NDArray[] {g}; }
    }

    static final class MulScalar extends Unary {
        final float s;
        MulScalar(float s) { this.s = s; }
        NDArray compute(NDArray a) { return a.mul(s); }
        protected NDArray[] backward(NDArray g) { return new NDArray[] {g.mul(s)}; }
    }

    static final class PowScalar extends Unary {
        final float s;
        PowScalar(float s) { this.s = s; }
        NDArray compute(NDArray a) { return a.pow(s); }
        protected NDArray[] backward(NDArray g) {
            try (NDArray p = a.pow(s - 1f); NDArray d = p.mul(s)) {
                return new NDArray[] {g.mul(d)};
            }
        }
    }

    /** s / a. */
    static final class RDivScalar extends Unary {
        final float s;
        RDivScalar(float s) { this.s = s; }
        NDArray compute(NDArray a) { return a.rdiv(s); }
        protected NDArray[] backward(NDArray g) {
            // -s / a^2
            try (NDArray a2 = a.square(); NDArray d = a2.rdiv(-s)) {
                return new NDArray[] {g.mul(d)};
            }
        }
    }

    static final class Neg extends Unary {
        NDArray compute(NDArray a) { return a.neg(); }
        protected NDArray[] backward(NDArray g) { return new NDArray[] {g.neg()}; }
    }

    static final class Exp extends Unary {
        NDArray compute(NDArray a) { return a.exp(); }
        protected NDArray[] backward(NDArray g) { return new NDArray[] {g.mul(out)}; }
    }

    static final class Log extends Unary {
        NDArray compute(NDArray a) { return a.log(); }
        protected NDArray[] backward(NDArray g) { return new NDArray[] {g.div(a)}; }
    }

    /** Backward in one backend call (Backend.reluBackward), not a mask and a product. */
    static final class Relu extends Unary {
        NDArray compute(NDArray a) { return a.relu(); }
        protected NDArray[] backward(NDArray g) {
            NDArray dx = NDArray.empty(g.device(), a.shape());
            try (NDArray x = a.compact(); NDArray gc = g.compact()) {
                g.backend().reluBackward(x.storage(), gc.storage(), dx.storage(), dx.size());
            }
            return new NDArray[] {dx};
        }
    }

    static final class Tanh extends Unary {
        NDArray compute(NDArray a) { return a.tanh(); }
        protected NDArray[] backward(NDArray g) {
            try (NDArray sq = out.square(); NDArray d = sq.rsub(1f)) {
                return new NDArray[] {g.mul(d)};
            }
        }
    }

    static final class Sigmoid extends Unary {
        NDArray compute(NDArray a) { return a.sigmoid(); }
        protected NDArray[] backward(NDArray g) {
            try (NDArray one = out.rsub(1f); NDArray d = out.mul(one)) {
                return new NDArray[] {g.mul(d)};
            }
        }
    }
}
