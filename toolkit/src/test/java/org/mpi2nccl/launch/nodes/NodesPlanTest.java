package org.mpi2nccl.launch.nodes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.cli.Main;

/** What simulated nodes look like before they are made (no root needed): names, addresses, each node's environment. */
class NodesPlanTest {
    @Test
    void eachNodeHasItsOwnHostIdGpusAndTheClusterInterface() {
        NodesPlan p = NodesPlan.of(2).gpusPerNode(2);
        assertEquals(Map.of("NCCL_HOSTID", "node0", "NCCL_SOCKET_IFNAME", "eth1", "NCCL_IB_DISABLE", "1",
                "CUDA_VISIBLE_DEVICES", "0,1"), p.environment(0));
        assertEquals("2,3", p.environment(1).get("CUDA_VISIBLE_DEVICES"));
        assertEquals("10.211.0.1\n10.211.0.2\n", p.machinesFile());
        assertTrue(p.hostsFile().contains("10.211.0.2 node1\n"), p.hostsFile());
        assertFalse(NodesPlan.of(3).environment(2).containsKey("CUDA_VISIBLE_DEVICES"), "no GPUs asked for: all visible");
    }

    @Test
    void overridesReplaceThePlansOwnVariablesNodeOnesLast() {
        NodesPlan p = NodesPlan.of(2).env("NCCL_SOCKET_IFNAME", "eth0").env(1, "NCCL_SOCKET_IFNAME", "eth9");
        assertEquals("eth0", p.environment(0).get("NCCL_SOCKET_IFNAME"));
        assertEquals("eth9", p.environment(1).get("NCCL_SOCKET_IFNAME"));
    }

    @Test
    void badPlansAreRefusedWithWhatIsWrong() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodesPlan.of(1)).getMessage().contains("2..16"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodesPlan.of(2).linkRate("fast")).getMessage()
                .contains("1gbit"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodesPlan.of(2).env(2, "X", "1")).getMessage()
                .contains("no node 2"));
        assertThrows(IllegalArgumentException.class, () -> NodesPlan.of(2).env("1BAD", "x"));
        assertEquals(1_000_000_000L, NodeNetwork.bitsPerSecond("1gbit"));
        assertEquals(800_000L, NodeNetwork.bitsPerSecond("100kbps"));
    }

    @Test
    void withoutRootOrIpTheMessageSaysWhatIsNeeded() {
        assertEquals("simulated nodes need root (network namespaces, veth links): run as root (sudo); the user here is ann",
                Ip.whyNot(false, true, "ann").orElseThrow());
        assertTrue(Ip.whyNot(true, false, "root").orElseThrow().contains("apt-get install iproute2"));
        assertTrue(Ip.whyNot(false, false, "ann").orElseThrow().contains("root and iproute2's ip"));
        assertTrue(Ip.whyNot(true, true, "root").isEmpty());
    }

    @Test
    void jobsGetTheNodesMachinesFileAndDaemonsUnlessTheyBringTheirOwn() {
        Path m = Path.of("/tmp/m");
        assertEquals(List.of("mpjrun", "--device", "niodev", "--machines", "/tmp/m", "--running-daemons", "40055", "-np", "2", "Main"),
                SimulatedNodes.jobArgs(List.of("mpjrun", "-np", "2", "Main"), m));
        assertFalse(SimulatedNodes.jobArgs(List.of("bandwidth", "--machines", "/x"), m).contains("/tmp/m"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SimulatedNodes.jobArgs(List.of("doctor"), m))
                .getMessage().contains("'doctor'"));
    }

    @Test
    void theCommandShowsThePlanAndRefusesBadInputInOneLine() {
        String[] shown = cli("nodes", "--nodes", "3", "--gpus-per-node", "1", "--link-rate", "1gbit", "--show");
        assertEquals("0", shown[0]);
        assertTrue(shown[1].contains("node2  eth1 10.211.0.3/24") && shown[1].contains("CUDA_VISIBLE_DEVICES=2")
                && shown[1].contains("a bridge") && shown[1].contains("1gbit"), shown[1]);
        String[] bad = cli("nodes", "--", "doctor");
        assertEquals("2", bad[0]);
        assertTrue(bad[2].startsWith("mpi2nccl nodes: the job must be mpjrun or bandwidth (got 'doctor')"), bad[2]);
        String[] badEnv = cli("nodes", "--node-env", "x:A=1", "--show");
        assertEquals("2", badEnv[0]);
        assertTrue(badEnv[2].contains("is not K:NAME=VALUE"), badEnv[2]);
        String[] noValue = cli("nodes", "--env", "NCCL_DEBUG", "--show");
        assertEquals("2", noValue[0]);
        assertTrue(noValue[2].contains("'NCCL_DEBUG'") || noValue[2].contains(" NCCL_DEBUG"), noValue[2]);
        assertEquals(1, noValue[2].strip().lines().count(), noValue[2]);
    }

    @Test
    void theCommandsVariablesReachTheNodesValuesKeepingTheirEqualsSigns() {
        String[] shown = cli("nodes", "--env", "NCCL_SOCKET_IFNAME=eth0", "--env", "NCCL_IB_HCA==mlx5_0",
                "--node-env", "1:NCCL_SOCKET_IFNAME=eth9", "--show");
        assertEquals("0", shown[0], shown[2]);
        List<String> lines = shown[1].lines().toList();
        assertTrue(lines.get(0).startsWith("node0") && lines.get(0).contains("NCCL_SOCKET_IFNAME=eth0")
                && lines.get(0).contains("NCCL_IB_HCA==mlx5_0"), lines.get(0));
        assertTrue(lines.get(1).startsWith("node1") && lines.get(1).contains("NCCL_SOCKET_IFNAME=eth9"), lines.get(1));
    }

    private static String[] cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        int status;
        try {
            status = Main.run(args);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        return new String[] {Integer.toString(status), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
    }
}
