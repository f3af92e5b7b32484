package org.mpi2nccl.comm;

/**
 * The element types a communicator moves: the common ground of MPI's datatypes ({@code MPI.FLOAT}) and
 * NCCL's ({@code ncclFloat32}). A host buffer of a type is backed by the Java array named here.
 */
public enum DataType {
    INT8(1, byte[].class),
    INT32(4, int[].class),
    INT64(8, long[].class),
    FLOAT32(4, float[].class),
    FLOAT64(8, double[].class);

    private final int bytes;
    private final Class<?> arrayClass;

    DataType(int bytes, Class<?> arrayClass) {
        this.bytes = bytes;
        this.arrayClass = arrayClass;
    }

    /** Bytes per element. */
    public int bytes() {
        return bytes;
    }

    /** The Java array class that holds elements of this type on the host. */
    public Class<?> arrayClass() {
        return arrayClass;
    }

    public boolean isFloatingPoint() {
        return this == FLOAT32 || this == FLOAT64;
    }

    /** The type of a Java primitive array, or an error that names what was given. */
    public static DataType ofArray(Object array) {
        for (DataType t : values()) {
            if (t.arrayClass.isInstance(array)) {
                return t;
            }
        }
        throw new IllegalArgumentException("not a buffer a communicator can move: "
                + (array == null ? "null" : array.getClass().getSimpleName())
                + " (use byte[], int[], long[], float[] or double[])");
    }

    /** Lower-case name as in nccl-tests' output ("float32"). */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
