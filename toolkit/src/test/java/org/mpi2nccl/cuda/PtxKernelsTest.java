package org.mpi2nccl.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The PTX that build.sh compiled from native/ and Maven packed into the toolkit holds every kernel the Java
 * side names (Kernel.all()), with parameters of the types the Java launch passes, in both targets (sm90 and
 * the portable sm75); and no PTX kernel lacks a Java name. Runs without a GPU: it parses the PTX text.
 */
class PtxKernelsTest {
    private static final Pattern ENTRY = Pattern.compile("\\.visible \\.entry (\\w+)\\(([^)]*)\\)", Pattern.DOTALL);
    private static final Pattern PARAM = Pattern.compile("\\.param (?:\\.align (\\d+) )?\\.(\\w+) \\w+?(?:\\[(\\d+)\\])?\\s*$");

    /** PTX text of a module/target from the class path, or null. */
    private static String ptx(String module, String target) throws IOException {
        try (InputStream in = PtxKernelsTest.class.getResourceAsStream(KernelModules.resourceName(module, target))) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    /** kernel name -> PTX parameter type list (".u64", ".f32", ".b8[144]", ...). */
    static Map<String, List<String>> entries(String ptxText) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        Matcher m = ENTRY.matcher(ptxText);
        while (m.find()) {
            List<String> params = new ArrayList<>();
            for (String p : m.group(2).split(",")) {
                String t = p.trim();
                if (t.isEmpty()) continue;
                Matcher pm = PARAM.matcher(t);
                if (!pm.find()) throw new AssertionError("unparsed PTX parameter '" + t + "' of " + m.group(1));
                params.add("." + pm.group(2) + (pm.group(3) != null ? "[" + pm.group(3) + "]" : ""));
            }
            out.put(m.group(1), params);
        }
        return out;
    }

    /** What the kernel's C parameters look like in PTX, from the Java signature letters. */
    static List<String> expectedParams(String signature) {
        List<String> out = new ArrayList<>();
        for (char c : signature.toCharArray()) {
            out.add(switch (c) {
                case 'p', 'l', 'u' -> ".u64";
                case 'i' -> ".u32";
                case 'f' -> ".f32";
                case 'L' -> ".b8[" + (2 + 2 * Layout.MAX_DIMS) * 8 + "]";
                case 'W' -> ".b8[96]";
                case 'S' -> ".b8[" + (1 + 4 * KernelArgs.SGD_TENSORS) * 8 + "]";
                case 'A' -> ".b8[" + (1 + 5 * KernelArgs.SGD_TENSORS) * 8 + "]";
                default -> throw new AssertionError("unknown signature letter " + c);
            });
        }
        return out;
    }

    private static boolean nvccPresent() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "nvcc"))) return true;
        }
        return false;
    }

    private static void requirePtx() throws IOException {
        if (ptx("memory", "sm90") == null) {
            if (nvccPresent()) fail("nvcc is installed but the PTX is not on the class path: build.sh did not compile native/");
            System.out.println("no nvcc and no PTX in this build: skipped");
            Assumptions.assumeTrue(false, "no nvcc and no PTX in this build: skipped");
        }
    }

    @Test
    void everyJavaKernelIsInBothPtxTargetsWithMatchingParameters() throws IOException {
        requirePtx();
        int checked = 0;
        for (String target : List.of("sm90", "sm75")) {
            Map<String, Map<String, List<String>>> byModule = new LinkedHashMap<>();
            for (Kernel k : Kernel.all()) {
                Map<String, List<String>> entries = byModule.computeIfAbsent(k.module, mod -> {
                    try {
                        String text = ptx(mod, target);
                        if (text == null) throw new AssertionError("no PTX for module " + mod + " (" + target + ")");
                        return entries(text);
                    } catch (IOException e) {
                        throw new AssertionError(e);
                    }
                });
                List<String> params = entries.get(k.name);
                if (params == null) fail(k + " is named in Java but not in " + k.module + "." + target + ".ptx; it has " + entries.keySet());
                assertEquals(expectedParams(k.signature), params, k + " (" + target + "): Java signature " + k.signature);
                checked++;
            }
        }
        System.out.println("PTX check: " + checked / 2 + " kernels in " + Kernel.modules().size() + " modules, both targets");
        assertTrue(checked >= 2 * 60, "expected the full kernel set, checked " + checked);
    }

    /**
     * The Hopper fatbin that KernelModules loads in place of the sm90 PTX: one per module, a fatbin by its magic
     * number, holding every kernel of the module by name (the machine code's symbol table is plain text).
     */
    @Test
    void everyModuleHasAHopperFatbinWithItsKernels() throws IOException {
        requirePtx();
        int kernels = 0;
        for (String module : Kernel.modules()) {
            byte[] fatbin = KernelModules.readFatbin(module, "sm90");
            if (fatbin == null) fail("no " + KernelModules.fatbinName(module) + " on the class path: build.sh did not compile it");
            assertTrue(fatbin.length > 16 && (fatbin[0] & 0xff) == 0x50 && (fatbin[1] & 0xff) == 0xed
                    && (fatbin[2] & 0xff) == 0x55 && (fatbin[3] & 0xff) == 0xba, module + ".sm90.fatbin does not start with the fatbin magic");
            String bytes = new String(fatbin, StandardCharsets.ISO_8859_1);
            for (Kernel k : Kernel.all()) {
                if (!k.module.equals(module)) continue;
                assertTrue(bytes.contains(k.name + "\0"), k + " is not in " + module + ".sm90.fatbin");
                kernels++;
            }
        }
        assertEquals(Kernel.all().size(), kernels, "kernels found in the fatbins");
        assertEquals(null, KernelModules.readFatbin("memory", "sm75"), "the portable target loads PTX");
    }

    @Test
    void everyPtxKernelHasAJavaName() throws IOException {
        requirePtx();
        TreeSet<String> orphans = new TreeSet<>();
        TreeSet<String> named = new TreeSet<>();
        for (Kernel k : Kernel.all()) named.add(k.module + ":" + k.name);
        for (String module : Kernel.modules()) {
            for (String entry : entries(ptx(module, "sm90")).keySet()) {
                if (!named.contains(module + ":" + entry)) orphans.add(module + ":" + entry);
            }
        }
        assertTrue(orphans.isEmpty(), "kernels compiled but never launched from Java (dead code): " + orphans);
    }

    @Test
    void everyNativeSourceIsAModuleJavaUses() throws IOException {
        Path nativeDir = Path.of("..", "native");
        Assumptions.assumeTrue(Files.isDirectory(nativeDir), "native/ not found from " + Path.of("").toAbsolutePath() + ": skipped");
        TreeSet<String> sources = new TreeSet<>();
        try (var files = Files.list(nativeDir)) {
            files.filter(f -> f.toString().endsWith(".cu")).forEach(f -> sources.add(f.getFileName().toString().replace(".cu", "")));
        }
        assertEquals(sources, new TreeSet<>(Kernel.modules()), "native/*.cu files vs modules named by Kernel");
    }

    /** ptxas (from the CUDA toolkit, if installed) assembles every module for the GPUs it targets. */
    @Test
    void ptxAssemblesWithPtxas() throws Exception {
        requirePtx();
        Path ptxas = null;
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "ptxas"))) ptxas = Path.of(dir, "ptxas");
        }
        if (ptxas == null) {
            System.out.println("no ptxas on PATH: skipped");
            Assumptions.assumeTrue(false, "no ptxas on PATH: skipped");
        }
        Path dir = Files.createTempDirectory("ptx-check");
        // One ptxas per module and target, a few at a time: each is a single-threaded process of up to 2 s, and
        // the largest go first so that no long one is left alone at the end. Every run's status is checked.
        List<String[]> runs = new ArrayList<>();
        for (String module : Kernel.modules()) {
            for (String[] t : new String[][] {{"sm90", "sm_90"}, {"sm75", "sm_75"}}) {
                Path f = dir.resolve(module + "." + t[0] + ".ptx");
                Files.writeString(f, ptx(module, t[0]), StandardCharsets.US_ASCII);
                runs.add(new String[] {f.toString(), t[1]});
            }
        }
        runs.sort(java.util.Comparator.comparingLong((String[] r) -> Path.of(r[0]).toFile().length()).reversed());
        Path tool = ptxas;
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors())));
        try {
            List<Future<String>> failures = new ArrayList<>();
            for (String[] r : runs) failures.add(pool.submit(() -> ptxas(tool, dir, Path.of(r[0]), r[1])));
            List<String> failed = new ArrayList<>();
            for (Future<String> f : failures) {
                String why = f.get();
                if (why != null) failed.add(why);
            }
            assertEquals(List.of(), failed, "ptxas failed");
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(130, TimeUnit.SECONDS);
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        }
    }

    /** Assembles {@code ptx} for {@code arch}; null when ptxas exits with 0, else what went wrong and its output. */
    private static String ptxas(Path ptxas, Path dir, Path ptx, String arch) throws Exception {
        String name = ptx.getFileName().toString();
        Path log = dir.resolve(name + "." + arch + ".log");
        Process p = new ProcessBuilder(ptxas.toString(), "-arch=" + arch, "-o", dir.resolve(name + "." + arch + ".cubin").toString(),
                ptx.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) return "ptxas did not finish in 120 s on " + name + " (" + arch + ")";
        } finally {
            if (p.isAlive()) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        return p.exitValue() == 0 ? null : "ptxas " + arch + " " + name + " exited with " + p.exitValue() + ": " + Files.readString(log);
    }
}
