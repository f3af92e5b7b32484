package org.mpi2nccl.bench.gpu;

/**
 * One measured figure of {@code mpi2nccl bench-gpu}: {@code value} in {@code unit}, {@code ms} per repetition
 * (median), and a note on how it was measured. The JSON report holds a list of them, field by field, for
 * scripts/gpu/cuda-bench.sh to set beside the PyTorch peer's.
 */
public record GpuFigure(String group, String name, double value, String unit, double ms, String note) {}
