// A first look at a GPU machine through the bundle: JCuda driver API, JavaCPP cudart/cuBLAS/NCCL.
// Compiled here (javac -cp bundle jars) and carried; prints one line per check.
import static jcuda.driver.JCudaDriver.*;
import jcuda.driver.*;
import org.bytedeco.cuda.cudart.*;
import org.bytedeco.cuda.nccl.*;
import org.bytedeco.javacpp.*;
import static org.bytedeco.cuda.global.cudart.*;
import static org.bytedeco.cuda.global.nccl.*;
import static org.bytedeco.cuda.global.cublas.*;

public class Probe {
    public static void main(String[] a) throws Exception {
        JCudaDriver.setExceptionsEnabled(true);
        JCudaDriver.cuInit(0);
        int[] n = {0}; JCudaDriver.cuDeviceGetCount(n);
        System.out.println("jcuda devices " + n[0]);
        for (int i = 0; i < n[0]; i++) {
            CUdevice d = new CUdevice(); cuDeviceGet(d, i);
            byte[] name = new byte[256]; cuDeviceGetName(name, 256, d);
            System.out.println("jcuda device " + i + " " + new String(name).trim());
            CUcontext c = new CUcontext(); cuDevicePrimaryCtxRetain(c, d); cuCtxSetCurrent(c);
        }
        int[] v = {0}; JCudaDriver.cuDriverGetVersion(v); System.out.println("driver " + v[0]);
        int[] cnt = {0};
        System.out.println("cudart getDeviceCount rc=" + cudaGetDeviceCount(cnt) + " n=" + cnt[0]);
        int[] rv = {0}; cudaRuntimeGetVersion(rv); System.out.println("cudart runtime " + rv[0]);
        int[] nv = {0}; System.out.println("nccl getVersion rc=" + ncclGetVersion(nv) + " v=" + nv[0]);
        ncclUniqueId id = new ncclUniqueId();
        System.out.println("nccl uniqueId rc=" + ncclGetUniqueId(id));
        org.bytedeco.cuda.cublas.cublasContext h = new org.bytedeco.cuda.cublas.cublasContext();
        System.out.println("cublasCreate rc=" + cublasCreate_v2(h));
        // single-process allreduce over all GPUs
        int g = cnt[0];
        IntPointer devs = new IntPointer(g); for (int i = 0; i < g; i++) devs.put(i, i);
        PointerPointer<ncclComm> cp = new PointerPointer<>(g);
        System.out.println("ncclCommInitAll rc=" + ncclCommInitAll(cp, g, devs));
        System.out.println("probe done");
    }
}
