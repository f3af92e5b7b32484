package org.mpi2nccl.tensor;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The {@link Backend} contract's optimizer steps: SGD (momentum, weight decay) and Adam as PyTorch defines them,
 * and the multi-tensor steps (more tensors than one GPU launch holds) equal to one step per tensor. Run for each
 * backend through {@link BackendContractTest}'s subclasses.
 */
public abstract class OptimizerStepContractTest extends TrainingLayerContractTest {

    // ---- optimizers ---------------------------------------------------------------------------------------------

    @Test
    void sgdStepsOnManyTensorsMatchOneStepEach() {
        int count = 19;                        // more than one GPU launch holds (16)
        Storage[] ps = new Storage[count], gs = new Storage[count], vs = new Storage[count], plain = new Storage[count];
        long[] sizes = new long[count];
        float[][] expectP = new float[count][], expectV = new float[count][], expectPlain = new float[count][];
        float lr = 0.05f, mom = 0.9f, wd = 0.001f;
        for (int t = 0; t < count; t++) {
            int n = t == 3 ? 5000 : 1 + 37 * t;
            sizes[t] = n;
            float[] p = randoms(n, -1, 1), g = randoms(n, -1, 1), v = randoms(n, -0.1f, 0.1f);
            ps[t] = upload(p);
            gs[t] = upload(g);
            vs[t] = upload(v);
            plain[t] = upload(p);
            expectP[t] = new float[n];
            expectV[t] = new float[n];
            expectPlain[t] = new float[n];
            for (int i = 0; i < n; i++) {
                float d = g[i] + wd * p[i];
                expectV[t][i] = mom * v[i] + d;
                expectP[t][i] = p[i] - lr * expectV[t][i];
                expectPlain[t][i] = p[i] - lr * g[i];
            }
        }
        backend.sgdSteps(ps, gs, vs, sizes, lr, mom, wd);
        backend.sgdSteps(plain, gs, null, sizes, lr, 0f, 0f);
        for (int t = 0; t < count; t++) {
            assertClose(expectP[t], download(ps[t], (int) sizes[t]), 1e-5, "sgdSteps param of tensor " + t);
            assertClose(expectV[t], download(vs[t], (int) sizes[t]), 1e-5, "sgdSteps velocity of tensor " + t);
            assertClose(expectPlain[t], download(plain[t], (int) sizes[t]), 1e-5, "sgdSteps without momentum, tensor " + t);
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> backend.sgdSteps(ps, gs, null, sizes, lr, mom, wd));
        assertTrue(e.getMessage().contains("velocit"), e.getMessage());
    }

    @Test
    void adamStepsOnManyTensorsMatchOneStepEach() {
        int count = 18;                        // more than one GPU launch holds (16)
        Storage[] ps = new Storage[count], gs = new Storage[count], ms = new Storage[count], vs = new Storage[count];
        Storage[] ps1 = new Storage[count], ms1 = new Storage[count], vs1 = new Storage[count];
        long[] sizes = new long[count];
        float lr = 0.01f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, wd = 0.01f;
        for (int t = 0; t < count; t++) {
            int n = t == 2 ? 4000 : 1 + 29 * t;
            sizes[t] = n;
            float[] p = randoms(n, -1, 1), g = randoms(n, -1, 1), m = randoms(n, -0.1f, 0.1f), v = randoms(n, 0f, 0.1f);
            ps[t] = upload(p); gs[t] = upload(g); ms[t] = upload(m); vs[t] = upload(v);
            ps1[t] = upload(p); ms1[t] = upload(m); vs1[t] = upload(v);
        }
        backend.adamSteps(ps, gs, ms, vs, sizes, lr, b1, b2, eps, wd, 3);
        for (int t = 0; t < count; t++) {
            backend.adamStep(ps1[t], gs[t], ms1[t], vs1[t], sizes[t], lr, b1, b2, eps, wd, 3);
            int n = (int) sizes[t];
            assertClose(download(ps1[t], n), download(ps[t], n), 1e-6, "adamSteps param of tensor " + t);
            assertClose(download(ms1[t], n), download(ms[t], n), 1e-6, "adamSteps m of tensor " + t);
            assertClose(download(vs1[t], n), download(vs[t], n), 1e-6, "adamSteps v of tensor " + t);
        }
    }

    @Test
    void sgdAndAdamStepsMatchPyTorchDefinitions() {
        int n = 1001;
        float[] p = randoms(n, -1, 1), g = randoms(n, -1, 1), v = randoms(n, -0.1f, 0.1f);
        float lr = 0.1f, mom = 0.9f, wd = 0.01f;
        Storage sp = upload(p), sg = upload(g), sv = upload(v);
        backend.sgdStep(sp, sg, sv, n, lr, mom, wd);
        float[] ep = new float[n], ev = new float[n];
        for (int i = 0; i < n; i++) {
            float d = g[i] + wd * p[i];
            ev[i] = mom * v[i] + d;
            ep[i] = p[i] - lr * ev[i];
        }
        assertClose(ep, download(sp, n), 1e-5, "sgd param");
        assertClose(ev, download(sv, n), 1e-5, "sgd velocity");
        Storage plain = upload(p);
        backend.sgdStep(plain, sg, null, n, lr, 0f, 0f);
        float[] e0 = new float[n];
        for (int i = 0; i < n; i++) e0[i] = p[i] - lr * g[i];
        assertClose(e0, download(plain, n), 1e-5, "sgd without momentum");

        float[] m = randoms(n, -0.1f, 0.1f), s2 = randoms(n, 0f, 0.1f);
        Storage ap = upload(p), am = upload(m), av = upload(s2);
        float b1 = 0.9f, b2 = 0.999f, eps = 1e-8f;
        long step = 3;
        backend.adamStep(ap, sg, am, av, n, 1e-3f, b1, b2, eps, wd, step);
        float[] xp = new float[n], xm = new float[n], xv = new float[n];
        for (int i = 0; i < n; i++) {
            double d = g[i] + wd * p[i];
            xm[i] = (float) (b1 * m[i] + (1 - b1) * d);
            xv[i] = (float) (b2 * s2[i] + (1 - b2) * d * d);
            double mh = xm[i] / (1 - Math.pow(b1, step)), vh = xv[i] / (1 - Math.pow(b2, step));
            xp[i] = (float) (p[i] - 1e-3 * mh / (Math.sqrt(vh) + eps));
        }
        assertClose(xm, download(am, n), 1e-5, "adam m");
        assertClose(xv, download(av, n), 1e-5, "adam v");
        assertClose(xp, download(ap, n), 1e-5, "adam param");
    }
}
