package org.mpi2nccl.comm.nccl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.Test;

/**
 * The raw addresses handed to cudart and NCCL (buffers, metadata slots, a stream made by JCuda) reach JavaCPP
 * unchanged. The first GPU run failed because they did not: an anonymous Pointer subclass assigned its own
 * (shadowing) field to itself, so every address was 0. Runs without a GPU: only JavaCPP's Pointer is involved.
 */
class AddressesTest {

    @Test
    void aPointerMadeFromAnAddressHoldsThatAddress() {
        for (long a : new long[] {0x7f12_3456_7000L, 0x3_0000_0000L + 48, 1L, 0xffff_ffff_fff0L}) {
            Pointer p = Addresses.at(a);
            assertEquals(a, p.address(), "address 0x" + Long.toHexString(a));
            assertEquals(0, p.position(), "position must stay 0: JavaCPP adds it to the address it passes on");
        }
        assertEquals(0, Addresses.at(0).address());
    }

    @Test
    void aStreamHandleMadeFromAnAddressKeepsIt() {
        long jcudaStream = 0x5566_7788_9900L;
        CUstream_st s = new CUstream_st(Addresses.at(jcudaStream));
        assertEquals(jcudaStream, s.address());
    }

    @Test
    void hexNamesAddressesInMessages() {
        assertEquals("0x7f0000001000", Addresses.hex(0x7f00_0000_1000L));
    }

    @Test
    void memoryTypesAreNamedForTheBufferCheck() {
        assertTrue(NcclPointers.memoryType(0).contains("unregistered host"));
        assertTrue(NcclPointers.memoryType(1).contains("pinned host"));
        assertEquals("device memory", NcclPointers.memoryType(2));
        assertEquals("managed memory", NcclPointers.memoryType(3));
    }
}
