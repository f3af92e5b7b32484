// Issue 7: does a 1-rank NCCL communicator make this process's other GPU work slower? One H200 ran the lesson CNN's
// training 1.7-2.5% slower with one than without (results/gpu-2026-11-22-s5). Times cuBLAS GEMMs of the CNN's shapes
// and an elementwise kernel, before and after ncclCommInitAll on GPU 0, and prints the CUDA limits NCCL may change.
// Compiled here against the bundle's jars (javac -cp 'build/bundle/lib/*' -d build/nccl-presence ...) and carried.
import static org.bytedeco.cuda.global.cublas.*;
import static org.bytedeco.cuda.global.cudart.*;
import static org.bytedeco.cuda.global.nccl.*;

import org.bytedeco.cuda.cublas.cublasContext;
import org.bytedeco.cuda.cudart.CUevent_st;
import org.bytedeco.cuda.nccl.ncclComm;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.IntPointer;
import org.bytedeco.javacpp.Pointer;
import org.bytedeco.javacpp.PointerPointer;
import org.bytedeco.javacpp.SizeTPointer;

public class NcclPresence {
    static cublasContext h = new cublasContext();
    static Pointer a = new Pointer(), b = new Pointer(), c = new Pointer();

    static float gemms(int reps) {
        int[][] shapes = {{128, 128, 3136}, {6272, 64, 288}, {25088, 32, 9}, {288, 64, 6272}};
        FloatPointer one = new FloatPointer(1f), zero = new FloatPointer(0f);
        CUevent_st s = new CUevent_st(), e = new CUevent_st();
        cudaEventCreate(s);
        cudaEventCreate(e);
        cudaEventRecord(s, null);
        for (int r = 0; r < reps; r++)
            for (int[] m : shapes)
                cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, m[0], m[1], m[2], one, new FloatPointer(a), m[0], new FloatPointer(b), m[2],
                        zero, new FloatPointer(c), m[0]);
        cudaEventRecord(e, null);
        cudaEventSynchronize(e);
        float[] ms = {0};
        cudaEventElapsedTime(ms, s, e);
        return ms[0];
    }

    static void limits(String when) {
        SizeTPointer v = new SizeTPointer(1);
        StringBuilder sb = new StringBuilder(when + ":");
        int[] which = {cudaLimitStackSize, cudaLimitMallocHeapSize, cudaLimitPersistingL2CacheSize, cudaLimitPrintfFifoSize};
        String[] names = {"stack", "heap", "persistingL2", "printfFifo"};
        for (int i = 0; i < which.length; i++) {
            cudaDeviceGetLimit(v, which[i]);
            sb.append(' ').append(names[i]).append('=').append(v.get());
        }
        IntPointer cfg = new IntPointer(1);
        cudaDeviceGetCacheConfig(cfg);
        sb.append(" cacheConfig=").append(cfg.get());
        System.out.println(sb);
    }

    public static void main(String[] args) {
        cudaSetDevice(0);
        long n = 25088L * 288;
        cudaMalloc(a, n * 4);
        cudaMalloc(b, n * 4);
        cudaMalloc(c, n * 4);
        cublasCreate_v2(h);
        limits("before NCCL");
        gemms(200);
        for (int k = 0; k < 3; k++) System.out.printf("without NCCL: %.2f ms for 2000 x 4 GEMMs%n", gemms(2000));
        SizeTPointer stack = new SizeTPointer(1);
        cudaDeviceGetLimit(stack, cudaLimitStackSize);
        long stackBefore = stack.get();
        PointerPointer<ncclComm> comms = new PointerPointer<>(1);
        int r = ncclCommInitAll(comms, 1, new IntPointer(new int[] {0}));
        System.out.println("ncclCommInitAll(1 GPU) = " + r);
        cudaSetDevice(0);
        limits("after NCCL");
        for (int k = 0; k < 3; k++) System.out.printf("with NCCL:    %.2f ms for 2000 x 4 GEMMs%n", gemms(2000));
        cudaDeviceSetLimit(cudaLimitStackSize, stackBefore);
        limits("stack limit set back");
        for (int k = 0; k < 3; k++) System.out.printf("with NCCL, stack limit set back: %.2f ms%n", gemms(2000));
        ncclCommDestroy(comms.get(ncclComm.class, 0));
        limits("after ncclCommDestroy");
        for (int k = 0; k < 3; k++) System.out.printf("NCCL destroyed: %.2f ms%n", gemms(2000));
    }
}
