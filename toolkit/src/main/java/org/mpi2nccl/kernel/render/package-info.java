/**
 * What the kernel can show as a cell's output: XChart charts, Tablesaw tables, NDArrays and Tensors, and images.
 *
 * <p>Read {@link org.mpi2nccl.kernel.render.Renderers} first (the one list of what the kernel knows how to show),
 * then one renderer ({@link org.mpi2nccl.kernel.render.TableRenderer}, with
 * {@link org.mpi2nccl.kernel.render.TableLayout} for rounding and fitting the width). Every lesson's charts and tables go through
 * here, in the kernel and on rank engines.
 */
package org.mpi2nccl.kernel.render;
