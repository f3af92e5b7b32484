/**
 * The notebooks' helpers, one class per lesson ({@code Lesson00} for notebook 00 to {@code Lesson08} for
 * notebook 08; a long lesson's check or diagnosis sits beside it as {@code LessonNNSomething}): the longer code a lesson calls, so that its cells stay short, and each exercise's check.
 *
 * <p>Read {@link org.mpi2nccl.lessons.Check} first (how an exercise says right or wrong), then the class of the
 * lesson at hand beside its notebook: 01 MPI reduction with MPJ, 02 the ring all-reduce, 03 data-parallel
 * training, 04 NCCL, 05 speedup on GPUs, 06 faults and diagnosis, 07 sharding the optimizer (ZeRO stage 1).
 */
package org.mpi2nccl.lessons;
