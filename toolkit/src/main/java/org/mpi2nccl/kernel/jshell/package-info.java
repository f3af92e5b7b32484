/**
 * Evaluating a cell's Java with JShell, in the kernel and on every rank engine alike.
 *
 * <p>Read {@link org.mpi2nccl.kernel.jshell.JShellEvaluator} first: one evaluator holds one notebook's (or one
 * rank engine's) state and evaluates a cell snippet by snippet. Then {@link org.mpi2nccl.kernel.jshell.SplitCell}
 * (a cell cut into snippets), {@link org.mpi2nccl.kernel.jshell.CellValue} and
 * {@link org.mpi2nccl.kernel.jshell.CellError} (how a cell ended; {@link org.mpi2nccl.kernel.jshell.CellErrors}
 * builds it with the notebook's line numbers, {@link org.mpi2nccl.kernel.jshell.SnippetPlaces} maps JShell's
 * snippet ids back to them), {@link org.mpi2nccl.kernel.jshell.Completion} (Tab and Shift-Tab). {@link org.mpi2nccl.kernel.jshell.CellExecutionControl}
 * and {@link org.mpi2nccl.kernel.jshell.SnippetLoader} run the snippets in this JVM, each rank with its own MPI.
 */
package org.mpi2nccl.kernel.jshell;
