package org.mpi2nccl.cuda;

import org.mpi2nccl.tensor.ConvGeometry;
import org.mpi2nccl.tensor.Storage;

/**
 * Convolution and pooling for {@link CudaBackend} (the lesson CNN's layers): im2col and col2im turn a convolution
 * into the GEMM cuBLAS does (a block per plane, native/im2col.cu), and 2-D max pooling with its gradient (one
 * thread per output element, native/pool.cu). Every kernel takes the layer's geometry as one Window2d struct.
 */
final class CudaConvolutions {
    private final CudaBackend backend;
    private final CudaContext context;

    CudaConvolutions(CudaBackend backend, CudaContext context) {
        this.backend = backend;
        this.context = context;
    }

    void im2col(Storage x, Storage cols, ConvGeometry g) {
        long px = backend.address(x, "im2col x"), pc = backend.address(cols, "im2col cols");
        CudaBackend.checkRange("im2col x", x, 0, g.inputSize());
        long colSize = (long) g.n() * g.colRows() * g.colCols();
        CudaBackend.checkRange("im2col cols", cols, 0, colSize);
        // a block per (sample, channel) plane of x, writing that plane's KH*KW rows of cols
        context.launch(Kernel.IM2COL, (long) g.n() * g.c(), KernelArgs.of().ptr(px).ptr(pc).window(window(g)));
    }

    void col2im(Storage cols, Storage dx, ConvGeometry g) {
        long pc = backend.address(cols, "col2im cols"), pd = backend.address(dx, "col2im dx");
        CudaBackend.checkRange("col2im cols", cols, 0, (long) g.n() * g.colRows() * g.colCols());
        CudaBackend.checkRange("col2im dx", dx, 0, g.inputSize());
        // a block per (sample, channel) plane of dx
        context.launch(Kernel.COL2IM, (long) g.n() * g.c(), KernelArgs.of().ptr(pc).ptr(pd).window(window(g)));
    }

    void maxPool2d(Storage x, Storage out, ConvGeometry g) {
        long px = backend.address(x, "maxPool2d x"), po = backend.address(out, "maxPool2d out");
        long outSize = (long) g.n() * g.c() * g.outH() * g.outW();
        CudaBackend.checkRange("maxPool2d x", x, 0, g.inputSize());
        CudaBackend.checkRange("maxPool2d out", out, 0, outSize);
        context.launch(Kernel.MAXPOOL2D_FORWARD, outSize, KernelArgs.of().ptr(px).ptr(po).window(window(g)));
    }

    void maxPool2dBackward(Storage x, Storage dy, Storage dx, ConvGeometry g) {
        long px = backend.address(x, "maxPool2dBackward x"), pdy = backend.address(dy, "maxPool2dBackward dy"),
                pdx = backend.address(dx, "maxPool2dBackward dx");
        CudaBackend.checkRange("maxPool2dBackward x", x, 0, g.inputSize());
        CudaBackend.checkRange("maxPool2dBackward dy", dy, 0, (long) g.n() * g.c() * g.outH() * g.outW());
        CudaBackend.checkRange("maxPool2dBackward dx", dx, 0, g.inputSize());
        context.launch(Kernel.MAXPOOL2D_BACKWARD, g.inputSize(), KernelArgs.of().ptr(px).ptr(pdy).ptr(pdx).window(window(g)));
    }

    /** The Window2d struct's fields: n, c, h, w, kh, kw, sh, sw, ph, pw, oh, ow. */
    static long[] window(ConvGeometry g) {
        return new long[] {g.n(), g.c(), g.h(), g.w(), g.kh(), g.kw(), g.stride(), g.stride(), g.pad(), g.pad(), g.outH(), g.outW()};
    }
}
