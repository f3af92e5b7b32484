/**
 * What the kernel can show as a cell's output: XChart charts, Tablesaw tables and images.
 *
 * <p>Read {@link org.mpi2nccl.kernel.render.Renderers} first (the one list of what the kernel knows how to show),
 * then one renderer ({@link org.mpi2nccl.kernel.render.TableRenderer}). Every lesson's charts and tables go through
 * here, in the kernel and on rank engines.
 */
package org.mpi2nccl.kernel.render;
