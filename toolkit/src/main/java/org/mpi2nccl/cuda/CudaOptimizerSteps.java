package org.mpi2nccl.cuda;

import static org.mpi2nccl.cuda.CudaBackend.checkRange;

import org.mpi2nccl.tensor.Storage;

/**
 * The optimizer steps of {@link CudaBackend}: SGD (with momentum and weight decay) and Adam, one tensor per launch
 * or a whole parameter list in few launches. The multi-tensor kernels of native/optim.cu take their tensor list by
 * value in the launch's parameters (nothing uploaded), up to {@link KernelArgs#SGD_TENSORS} tensors a launch, so
 * a model's parameter list goes in chunks of that many ({@link #inChunks}).
 */
final class CudaOptimizerSteps {
    private final CudaBackend backend;
    private final CudaContext context;

    CudaOptimizerSteps(CudaBackend backend, CudaContext context) {
        this.backend = backend;
        this.context = context;
    }

    void sgdStep(Storage param, Storage grad, Storage velocity, long n, float lr, float momentum, float weightDecay) {
        long pp = address(param, "sgdStep param"), pg = address(grad, "sgdStep grad");
        checkRange("sgdStep param", param, 0, n);
        checkRange("sgdStep grad", grad, 0, n);
        long pv = 0;
        if (momentum != 0f) {
            if (velocity == null) throw new IllegalArgumentException("sgdStep: momentum " + momentum + " needs a velocity storage");
            pv = address(velocity, "sgdStep velocity");
            checkRange("sgdStep velocity", velocity, 0, n);
        }
        context.launch(Kernel.SGD_STEP, n, KernelArgs.of().ptr(pp).ptr(pg).ptr(pv).i64(n).f32(lr).f32(momentum).f32(weightDecay));
    }

    /** Up to {@link KernelArgs#SGD_TENSORS} tensors per launch; without momentum no velocity is read (address 0). */
    void sgdSteps(Storage[] params, Storage[] grads, Storage[] velocities, long[] sizes, float lr, float momentum,
                  float weightDecay) {
        sgdSteps(params, grads, velocities, sizes, lr, null, momentum, weightDecay);
    }

    /**
     * The same; with {@code lrAt} (not null) the kernels read the learning rate from its first element when they run
     * (Backend#sgdStepsLrFrom), else they are given {@code lr}.
     */
    void sgdSteps(Storage[] params, Storage[] grads, Storage[] velocities, long[] sizes, float lr, Storage lrAt, float momentum,
                  float weightDecay) {
        int count = params.length;
        if (grads.length != count || sizes.length != count || (velocities != null && velocities.length != count))
            throw new IllegalArgumentException("sgdSteps: " + count + " parameters, " + grads.length + " gradients, "
                    + (velocities == null ? "no" : String.valueOf(velocities.length)) + " velocities and " + sizes.length + " sizes");
        if (momentum != 0f) {
            for (int t = 0; t < count; t++) {
                if (velocities == null || velocities[t] == null)
                    throw new IllegalArgumentException("sgdSteps: momentum " + momentum + " needs a velocity storage for tensor " + t);
            }
        }
        long at = lrAt == null ? 0 : address(lrAt, "sgdSteps learning rate");
        if (lrAt != null) checkRange("sgdSteps learning rate", lrAt, 0, 1);
        inChunks("sgdSteps", sizes, new String[] {"param", "grad", "velocity"},
                new Storage[][] {params, grads, momentum != 0f ? velocities : null}, (k, n, p, most) -> {
                    KernelArgs args = KernelArgs.of().sgdTensors(k, n, p[0], p[1], p[2]);
                    if (at != 0) args.ptr(at);      // sgd_steps_lr_f32 reads the rate there; sgd_steps_f32 is given it
                    else args.f32(lr);
                    context.launch(at != 0 ? Kernel.SGD_STEPS_LR : Kernel.SGD_STEPS, most, args.f32(momentum).f32(weightDecay));
                });
    }

    void adamStep(Storage param, Storage grad, Storage m, Storage v, long n, float lr, float beta1, float beta2,
                  float eps, float weightDecay, long step) {
        long pp = address(param, "adamStep param"), pg = address(grad, "adamStep grad");
        long pm = address(m, "adamStep m"), pv = address(v, "adamStep v");
        checkRange("adamStep param", param, 0, n);
        checkRange("adamStep grad", grad, 0, n);
        checkRange("adamStep m", m, 0, n);
        checkRange("adamStep v", v, 0, n);
        if (step < 1) throw new IllegalArgumentException("adamStep: step counts from 1, got " + step);
        float c1 = (float) (1 - Math.pow(beta1, step)), c2 = (float) (1 - Math.pow(beta2, step));
        context.launch(Kernel.ADAM_STEP, n, KernelArgs.of().ptr(pp).ptr(pg).ptr(pm).ptr(pv).i64(n)
                .f32(lr).f32(beta1).f32(beta2).f32(eps).f32(weightDecay).f32(c1).f32(c2));
    }

    /** Up to {@link KernelArgs#SGD_TENSORS} tensors per launch, the list passed by value. */
    void adamSteps(Storage[] params, Storage[] grads, Storage[] m, Storage[] v, long[] sizes, float lr, float beta1,
                   float beta2, float eps, float weightDecay, long step) {
        int count = params.length;
        if (grads.length != count || m.length != count || v.length != count || sizes.length != count)
            throw new IllegalArgumentException("adamSteps: " + count + " parameters, " + grads.length + " gradients, "
                    + m.length + " and " + v.length + " moments, " + sizes.length + " sizes");
        if (step < 1) throw new IllegalArgumentException("adamSteps: step counts from 1, got " + step);
        float c1 = (float) (1 - Math.pow(beta1, step)), c2 = (float) (1 - Math.pow(beta2, step));
        inChunks("adamSteps", sizes, new String[] {"param", "grad", "m", "v"}, new Storage[][] {params, grads, m, v},
                (k, n, p, most) -> context.launch(Kernel.ADAM_STEPS, most, KernelArgs.of().adamTensors(k, n, p[0], p[1], p[2], p[3])
                        .f32(lr).f32(beta1).f32(beta2).f32(eps).f32(weightDecay).f32(c1).f32(c2)));
    }

    /** One launch of a multi-tensor kernel: {@code count} tensors, their sizes, one address list per role, the largest size (at least 1). */
    @FunctionalInterface
    private interface ChunkLaunch {
        void launch(int count, long[] sizes, long[][] addresses, long most);
    }

    /**
     * Hands {@code launch} the tensors {@link KernelArgs#SGD_TENSORS} at a time, each tensor's storages checked
     * (open, of this GPU, holding {@code sizes[t]} floats) and their addresses gathered, one list per role.
     * A null entry of {@code storages} is a role the step does not read (SGD's velocity without momentum):
     * its addresses are 0. Errors name the tensor, as "sgdSteps velocity 3".
     */
    private void inChunks(String op, long[] sizes, String[] roles, Storage[][] storages, ChunkLaunch launch) {
        int chunk = KernelArgs.SGD_TENSORS;
        long[] n = new long[chunk];
        long[][] addresses = new long[roles.length][chunk];
        for (int from = 0; from < sizes.length; from += chunk) {
            int k = Math.min(chunk, sizes.length - from);
            long most = 0;
            for (int j = 0; j < k; j++) {
                int t = from + j;
                n[j] = sizes[t];
                for (int r = 0; r < roles.length; r++) {
                    addresses[r][j] = storages[r] == null ? 0 : address(storages[r][t], op + " " + roles[r] + " " + t);
                }
                for (int r = 0; r < roles.length; r++) {
                    if (storages[r] != null) checkRange(op + " " + roles[r] + " " + t, storages[r][t], 0, n[j]);
                }
                most = Math.max(most, n[j]);
            }
            launch.launch(k, n, addresses, Math.max(1, most));
        }
    }

    private long address(Storage s, String op) {
        return backend.address(s, op);
    }
}
