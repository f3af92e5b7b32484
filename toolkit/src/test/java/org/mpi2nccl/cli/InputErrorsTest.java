package org.mpi2nccl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpi2nccl.data.FashionMnist;
import org.mpi2nccl.tensor.Backends;
import org.mpi2nccl.tensor.Device;

/**
 * A mistake on the command line costs one line and exit code 2, found before anything is loaded or started;
 * the Java stack trace only with --verbose.
 */
class InputErrorsTest {
    record Outcome(int rc, String out, String err) {
        long errLines() { return err.lines().filter(l -> !l.isBlank()).count(); }
    }

    static Outcome run(String... args) {
        PrintStream out = System.out, err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream(), e = new ByteArrayOutputStream();
        System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
        try {
            int rc = Main.run(args);
            return new Outcome(rc, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    /** Exit code 2, one line on stderr that names {@code says}, nothing done (nothing on stdout). */
    static void refused(String says, String... args) {
        Outcome r = run(args);
        String what = String.join(" ", args) + " -> rc " + r.rc() + ", stdout:\n" + r.out() + "stderr:\n" + r.err();
        assertEquals(2, r.rc(), what);
        assertEquals(1, r.errLines(), what);
        assertTrue(r.err().contains(says), what);
        assertFalse(r.err().contains("\tat "), what);
        assertEquals("", r.out(), what);
    }

    @Test
    void trainFashionMnistChecksEverySettingBeforeLoadingTheData(@TempDir Path empty) {
        refused("--epochs must be at least 1, got 0", "train-fashion-mnist", "--epochs", "0");
        refused("--epochs must be at least 1, got -1", "train-fashion-mnist", "--epochs", "-1");
        refused("--batch-size must be at least 1", "train-fashion-mnist", "--batch-size", "0");
        refused("--train-limit must be at least 1", "train-fashion-mnist", "--train-limit", "-3");
        refused("--model must be mlp or cnn, got resnet", "train-fashion-mnist", "--model", "resnet");
        refused("--lr must be a positive number, got NaN", "train-fashion-mnist", "--lr", "NaN");
        refused("--epochs", "train-fashion-mnist", "--epochs", "three");                 // picocli's own parse error
        refused("Fashion-MNIST folder " + empty.resolve("nothing-here") + " does not exist", "train-fashion-mnist",
                "--data", empty.resolve("nothing-here").toString());
        refused("train-images-idx3-ubyte.gz not found", "train-fashion-mnist", "--data", empty.toString());
    }

    @Test
    void aDamagedDataFileIsOneLineNamingItAndHowToGetItAgain(@TempDir Path copy) throws Exception {
        Path debian = Path.of(FashionMnist.DEBIAN_DIR);
        assumeTrue(FashionMnist.isPresent(debian), "Debian dataset-fashion-mnist not installed");
        for (String f : new String[] {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz",
                "t10k-labels-idx1-ubyte.gz"}) {
            Files.copy(debian.resolve(f), copy.resolve(f));
        }
        Path images = copy.resolve("train-images-idx3-ubyte.gz");
        byte[] all = Files.readAllBytes(images);
        Files.write(images, Arrays.copyOf(all, all.length / 3));
        Outcome r = run("train-fashion-mnist", "--data", copy.toString(), "--epochs", "1");
        assertEquals(2, r.rc(), r.err());
        assertEquals(1, r.errLines(), r.err());
        assertTrue(r.err().contains(images + " is damaged") && r.err().contains("apt-get install --reinstall dataset-fashion-mnist"),
                r.err());
    }

    @Test
    void aGpuAskedForWhereThereIsNoneIsOneLine() {
        assumeFalse(Backends.isAvailable(Device.cuda(0)), "a GPU is usable here");
        refused("--device cuda:0, but no backend for it is usable here", "train-fashion-mnist", "--device", "cuda");
        refused("--device cuda, but no GPU is usable here", "run", "--device", "cuda");
    }

    @Test
    void aMisspelledSubcommandOrOptionGetsPicocliSuggestions() {
        refused("Unmatched argument at index 0: 'mpjrnu'. Did you mean: mpjrun", "mpjrnu");
        refused("Unknown options: '--epoch', '3'. Did you mean: --epochs?", "run", "--epoch", "3");
    }

    @Test
    void verbosePrintsTheStackTrace() {
        for (String[] args : new String[][] {{"train-fashion-mnist", "--epochs", "0", "--verbose"},
                {"--verbose", "train-fashion-mnist", "--epochs", "0"}}) {
            Outcome r = run(args);
            assertEquals(2, r.rc());
            assertTrue(r.err().contains("--epochs must be at least 1") && r.err().contains("\tat org.mpi2nccl.cli"), r.err());
        }
    }

    @Test
    void partialSumRefusesNOutsideItsRange() {
        refused("-n must be between 1 and", "partial-sum", "-n", "-5");
        refused("-n must be between 1 and", "partial-sum", "-n", "0");
        refused("-np must be at least 1", "partial-sum", "-np", "0");
    }

    @Test
    void theSpeedupRunChecksItsSettingsBeforeAnyRankStarts(@TempDir Path empty) {
        refused("--epochs must be at least 1", "run", "--epochs", "0");
        refused("--batch-per-rank must be at least 1", "run", "--batch-per-rank", "0");
        refused("rank counts must be >= 1", "run", "--ranks", "0");
        refused("--lr must be positive", "run", "--lr", "NaN");
        refused("--model must be cnn or mlp", "run", "--model", "resnet");
        refused("--rounds must be at least 1", "run", "--rounds", "0");
        refused("train-images-idx3-ubyte.gz not found", "run", "--data-dir", empty.toString());
    }

    /** A report folder that cannot be written (here: a file stands where it should be) is refused before any work. */
    @Test
    void outputFoldersAreCheckedBeforeTheWorkStarts(@TempDir Path tmp) throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "not a folder");
        String bad = file.resolve("report").toString();
        long t0 = System.nanoTime();
        refused("--out " + bad + ": cannot write there", "run", "--out", bad);
        assertTrue((System.nanoTime() - t0) / 1e9 < 10, "refused before the experiment, not after");
        refused("--out " + bad + ": cannot write there", "execute", "--out", bad, tmp.resolve("lesson.ipynb").toString());
        refused("--output " + file.resolve("x") + ": cannot write there", "execute", "--output",
                file.resolve("x").resolve("out.ipynb").toString(), tmp.resolve("lesson.ipynb").toString());
        assertEquals(List.of("a-file"), Files.list(tmp).map(p -> p.getFileName().toString()).toList(), "no probe left");
    }

    @Test
    void bandwidthChecksSizesAndRanksBeforeAnyRankStarts() {
        refused("-np must be at least 1", "bandwidth", "-np", "0");
        refused("--root must be a rank", "bandwidth", "-np", "2", "--root", "5");
        refused("bandwidth:", "bandwidth", "-e", "lots");
        refused("bandwidth:", "bandwidth", "-b", "1M", "-e", "8");
        refused("--timeout", "bandwidth", "--timeout", "soon");
    }
}
