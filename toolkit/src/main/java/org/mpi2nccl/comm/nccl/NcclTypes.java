package org.mpi2nccl.comm.nccl;

import static org.bytedeco.cuda.global.nccl.NCCL_API_MAGIC;
import static org.bytedeco.cuda.global.nccl.NCCL_VERSION_CODE;

import org.bytedeco.cuda.nccl.ncclConfig_t;
import org.bytedeco.javacpp.Loader;
import org.mpi2nccl.comm.CommBuffer;
import org.mpi2nccl.comm.DataType;
import org.mpi2nccl.comm.Reduction;

/** The toolkit's types in NCCL's numbers (nccl.h), and NCCL's communicator config. */
final class NcclTypes {
    private static final int CONFIG_UNDEF_INT = Integer.MIN_VALUE;

    private NcclTypes() {
    }

    static int ncclType(CommBuffer b) {
        return ncclType(b.dataType());
    }

    static int ncclType(DataType t) {
        return switch (t) {        // ncclDataType_t values (nccl.h)
            case INT8 -> org.bytedeco.cuda.global.nccl.ncclInt8;
            case INT32 -> org.bytedeco.cuda.global.nccl.ncclInt32;
            case INT64 -> org.bytedeco.cuda.global.nccl.ncclInt64;
            case FLOAT32 -> org.bytedeco.cuda.global.nccl.ncclFloat32;
            case FLOAT64 -> org.bytedeco.cuda.global.nccl.ncclFloat64;
        };
    }

    static int ncclOp(Reduction op) {
        return switch (op) {
            case SUM -> org.bytedeco.cuda.global.nccl.ncclSum;
            case AVG -> org.bytedeco.cuda.global.nccl.ncclAvg;
            case MAX -> org.bytedeco.cuda.global.nccl.ncclMax;
            case MIN -> org.bytedeco.cuda.global.nccl.ncclMin;
            case PROD -> org.bytedeco.cuda.global.nccl.ncclProd;
        };
    }

    /**
     * NCCL's config with every field at "undefined" (NCCL_CONFIG_INITIALIZER in Java) except blocking, and maxCTAs
     * where the options set it.
     */
    static ncclConfig_t config(NcclOptions options) {
        ncclConfig_t c = new ncclConfig_t();
        c.size(Loader.sizeof(ncclConfig_t.class)).magic(NCCL_API_MAGIC).version(NCCL_VERSION_CODE)
                .blocking(options.blocking() ? 1 : 0)
                .cgaClusterSize(CONFIG_UNDEF_INT).minCTAs(CONFIG_UNDEF_INT)
                .maxCTAs(options.maxCtas() > 0 ? options.maxCtas() : CONFIG_UNDEF_INT)
                .netName(null).splitShare(CONFIG_UNDEF_INT).trafficClass(CONFIG_UNDEF_INT).commName(null)
                .collnetEnable(CONFIG_UNDEF_INT).CTAPolicy(CONFIG_UNDEF_INT).shrinkShare(CONFIG_UNDEF_INT)
                .nvlsCTAs(CONFIG_UNDEF_INT).nChannelsPerNetPeer(CONFIG_UNDEF_INT).nvlinkCentricSched(CONFIG_UNDEF_INT)
                .graphUsageMode(CONFIG_UNDEF_INT).numRmaCtx(CONFIG_UNDEF_INT);
        return c;
    }
}
