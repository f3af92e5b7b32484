/**
 * Several nodes on one machine, for the multi-node lesson (08) and the GPU run across nodes: read
 * {@link org.mpi2nccl.launch.nodes.NodesPlan} first (what the nodes look like: names, addresses, each node's NCCL
 * variables), then {@link org.mpi2nccl.launch.nodes.NodeNetwork} (the namespaces and links, made with {@code ip}) and
 * {@link org.mpi2nccl.launch.nodes.SimulatedNodes} (a daemon per node, jobs run from node 0, everything removed after).
 * {@link org.mpi2nccl.launch.nodes.WhereAmI} and {@link org.mpi2nccl.launch.nodes.SocketBootstrap} are rank programs
 * that show where ranks run and how a bootstrap fails on the wrong interface;
 * {@link org.mpi2nccl.bench.WithinAndAcross} measures bandwidth within a node and across the link.
 */
package org.mpi2nccl.launch.nodes;
