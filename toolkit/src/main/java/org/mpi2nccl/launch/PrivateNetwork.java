package org.mpi2nccl.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A network of one job's own on this machine: a network namespace with nothing in it but a loopback interface,
 * which only the job's user can enter.
 *
 * <p>Why: MPJ Express's daemon, its starter and niodev's rank JVMs listen on every interface and ask nobody who
 * they are. On a machine other people use, any of them could connect and start programs as the job's user. Started
 * inside this namespace, they can be reached from nowhere else: another user's process cannot enter a namespace it
 * does not own, and the machine's own loopback is not this one.
 *
 * <p>How: bubblewrap makes a user namespace and a network namespace and leaves a sleeping process in them, which
 * keeps them alive; the job's processes enter them with {@code nsenter} ({@link #enter()}), keeping their own user
 * and groups. The sleeper ends with this JVM. A process in here reaches the kernel that started it through a Unix
 * socket in the user's private folder (file paths are not part of a network namespace).
 *
 * <p>{@value #ENV}: {@code auto} (the default: a private network wherever bubblewrap can make one), {@code require}
 * (a job that cannot have one does not start; a lab server's setting) or {@code off}.
 */
public final class PrivateNetwork implements AutoCloseable {
    public static final String ENV = "MPI2NCCL_PRIVATE_NETWORK";
    private static final Duration START = Duration.ofSeconds(10);
    private static volatile String whyNot;   // cached: "" when this machine can make one

    private final Process holder;
    private final long inside;

    private PrivateNetwork(Process holder, long inside) {
        this.holder = holder;
        this.inside = inside;
    }

    /** The policy: auto, require or off. */
    public enum Policy { AUTO, REQUIRE, OFF }

    /** The policy {@value #ENV} sets ({@code env} is the job's environment, then this JVM's). */
    public static Policy policy(String value) {
        if (value == null || value.isBlank()) return Policy.AUTO;
        try {
            return Policy.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new MpjLaunchException(ENV + "=" + value + " is not a policy: use auto, require or off");
        }
    }

    /**
     * A private network for a job under {@code policy}: empty when the policy is off, or auto and this machine
     * cannot make one; with require, a machine that cannot fails the job with the reason.
     */
    public static Optional<PrivateNetwork> forJob(Policy policy) {
        if (policy == Policy.OFF) return Optional.empty();
        String why = whyNotHere();
        if (!why.isEmpty()) {
            if (policy == Policy.REQUIRE) {
                throw new MpjLaunchException("this job must run in a private network (" + ENV + "=require), but " + why);
            }
            return Optional.empty();
        }
        return Optional.of(start());
    }

    /** Why this machine cannot make a private network (one line, with what to do), or "" when it can. */
    public static String whyNotHere() {
        String w = whyNot;
        if (w == null) {
            w = probe();
            if (!Thread.currentThread().isInterrupted()) whyNot = w;   // an interrupted probe proves nothing
        }
        return w;
    }

    private static String probe() {
        Optional<Path> bwrap = Bubblewrap.path();
        if (bwrap.isEmpty()) return "bubblewrap is not installed: " + Bubblewrap.INSTALL;
        if (!Files.isExecutable(Path.of("/usr/bin/nsenter"))) return "nsenter is missing: apt-get install util-linux";
        try {
            Process p = new ProcessBuilder(bwrap.get().toString(), "--unshare-user", "--unshare-net", "--dev-bind", "/", "/",
                    "--", "true").redirectErrorStream(true).start();
            if (!p.waitFor(START.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return "bubblewrap did not make a network namespace within " + START.toSeconds() + " s";
            }
            String said = new String(p.getInputStream().readAllBytes()).trim();
            return p.exitValue() == 0 ? "" : "bubblewrap cannot make a network namespace here (" + said
                    + "): unprivileged user namespaces may be off (sysctl kernel.unprivileged_userns_clone=1)";
        } catch (IOException e) {
            return "bubblewrap did not start: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while trying bubblewrap";
        }
    }

    private static PrivateNetwork start() {
        Path bwrap = Bubblewrap.path().orElseThrow();
        Process holder;
        try {
            holder = new ProcessBuilder(bwrap.toString(), "--unshare-user", "--unshare-net", "--dev-bind", "/", "/",
                    "--die-with-parent", "--", "sleep", "infinity").redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new MpjLaunchException("cannot start bubblewrap for the job's private network: " + e.getMessage());
        }
        String ours = netOf(ProcessHandle.current().pid());
        long deadline = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < deadline && holder.isAlive()) {
            // bwrap forks the sleeper into the new namespaces; bwrap itself stays outside them.
            Optional<ProcessHandle> in = holder.toHandle().descendants()
                    .filter(h -> { String n = netOf(h.pid()); return n != null && !n.equals(ours); }).findFirst();
            if (in.isPresent()) return new PrivateNetwork(holder, in.get().pid());
            // nothing tells when a process enters a namespace: look again after a pause that ends if bubblewrap exits
            waitForExit(holder, 20);
        }
        holder.destroyForcibly();
        throw new MpjLaunchException("the job's private network was not ready within " + START.toSeconds()
                + " s (bubblewrap " + (holder.isAlive() ? "still starting" : "ended") + "): is the machine overloaded?"
                + " " + ENV + "=off runs jobs on the machine's own network");
    }

    /** The command prefix that runs a command inside this network, as this user. */
    public List<String> enter() {
        return new ArrayList<>(List.of("/usr/bin/nsenter", "--target", Long.toString(inside), "--user", "--net",
                "--preserve-credentials", "--"));
    }

    /** The network namespace of process {@code pid}, or null when it cannot be read. */
    public static String netOf(long pid) {
        try {
            return Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "ns", "net")).toString();
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    @Override
    public void close() {
        holder.descendants().forEach(ProcessHandle::destroyForcibly);
        holder.destroyForcibly();
        try {
            holder.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void waitForExit(Process p, long ms) {
        try {
            p.waitFor(ms, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MpjLaunchException("interrupted while making the job's private network");
        }
    }

    /**
     * The MPJ daemon's, port manager's and starter's ports in a job's private network, where every port is the
     * job's own: fixed ones below the range the kernel hands out by itself (32768 and up), so that no socket a rank
     * opens can take them first. Ports picked free on the machine's network could be (a namespace hands out its own).
     */
    static int[] ports(Integer daemonPort) {
        int d = daemonPort != null ? daemonPort : PORTS[0];
        int[] others = java.util.Arrays.stream(PORTS).filter(p -> p != d).limit(2).toArray();
        return new int[] {d, others[0], others[1]};
    }

    private static final int[] PORTS = {20051, 20052, 20053};
}
