package org.mpi2nccl.grade;

import org.mpi2nccl.kernel.output.CellOutputFolder;
import org.mpi2nccl.notebook.Notebook;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Grades a class: for each student notebook in a folder, the student's exercise cells run with the instructor's
 * own cells ({@link Submission}) in a fresh kernel JVM with a time limit ({@link KernelProcess}); the check cells'
 * verdicts ({@link Verdict}) go into the gradebook. A submission that cannot be read, runs for ever or kills its
 * JVM gets failed rows with the reason, and the next student is graded.
 *
 * <p>The folder {@code out} gets gradebook.csv and gradebook.html, and per student the executed notebook
 * (executed/), the run's log (logs/) and its working folder (work/, where a cell's files land). A lesson with
 * write-ups ({@link Writeup}: markdown the student writes, marked by hand) also gets marks.csv ({@link Marks}), or
 * the file {@link #marks(Path)} names: the instructor's marks, kept over every re-run and shown in the gradebook.
 */
public final class Grader {
    /**
     * Limits of each student's run: per cell, for the whole notebook, and the heap of each of its JVMs (the kernel
     * and every rank engine, in MiB).
     */
    public record Limits(Duration cell, Duration student, int heapMib, int processes) {
        public Limits(Duration cell, Duration student, int heapMib) {
            this(cell, student, heapMib, DEFAULT_PROCESSES);
        }

        public Limits(Duration cell, Duration student) {
            this(cell, student, DEFAULT_HEAP_MIB);
        }
    }

    /**
     * Processes a student's run may have at once: its kernel JVM, up to 16 rank engines with their MPJ daemon and
     * starter, the sandbox's own, and room for a cell that runs a few commands.
     */
    public static final int DEFAULT_PROCESSES = 64;

    /** The heap of each JVM of a student's run: the lessons need a few hundred MiB. */
    public static final int DEFAULT_HEAP_MIB = 1024;

    /** The kernel's system property with its rank engines' JVM options (kernel.mpj.EngineJvmOptions). */
    static final String ENGINE_JVM_ARGS = "mpi2nccl.engine.jvmArgs";

    /** The JVM gets this long beyond the notebook's own limit (start-up, writing the notebook) before it is killed. */
    static final Duration JVM_SLACK = Duration.ofSeconds(30);

    private final Notebook source;
    private final List<Exercise> exercises;
    private final List<Writeup> writeups;
    /** The instructor's marks of the write-ups; null: marks.csv in the gradebook's folder. */
    private Path marksFile;
    private final Limits limits;
    private final PrintStream log;
    private final Path bwrap;
    private final String mpjHome;
    /** What every sandboxed run reads: the Java runtime, the class path, MPJ_HOME (the same for every student). */
    private final List<String> readOnly;
    /** How many ranks the source starts: every one of them must give its answer ({@link DataCheck}). */
    private final int ranks;
    private static final java.security.SecureRandom SEEDS = new java.security.SecureRandom();

    /** A grader whose every student runs in a {@link Sandbox}; it refuses to start where there can be none. */
    public Grader(Path source, Limits limits, PrintStream log) throws IOException {
        this(source, limits, log, true);
    }

    /**
     * {@code sandboxed} false runs students' code with the grader's own rights (for a machine where no submission can
     * harm anyone); true needs bubblewrap and says how to get it.
     */
    public Grader(Path source, Limits limits, PrintStream log, boolean sandboxed) throws IOException {
        if (sandboxed && org.mpi2nccl.launch.Bubblewrap.path().isEmpty()) {
            throw new IllegalStateException("cannot sandbox the students' runs: " + Sandbox.whyNot());
        }
        this.source = Notebook.read(source);
        this.exercises = Exercise.of(this.source);
        this.writeups = Writeup.of(this.source);
        this.ranks = DataCheck.ranks(this.source);
        this.limits = limits;
        this.log = log;
        this.bwrap = sandboxed ? org.mpi2nccl.launch.Bubblewrap.path().orElseThrow() : null;
        String home;
        try {
            home = org.mpi2nccl.launch.MpjHome.locate(null).dir().toString();
        } catch (RuntimeException noMpj) {
            home = null; // a lesson without ranks still grades; one with ranks says MPJ_HOME is missing
        }
        this.mpjHome = home;
        this.readOnly = sandboxed ? Sandbox.toolkitPaths(System.getProperty("java.home"),
                System.getProperty("java.class.path"), home) : List.of();
    }

    /** The exercise names, in the order of the lesson. */
    public List<String> exercises() {
        return exercises.stream().map(Exercise::name).collect(Collectors.toList());
    }

    /** The write-up names, in the order of the lesson (none for most lessons). */
    public List<String> writeups() {
        return writeups.stream().map(Writeup::name).collect(Collectors.toList());
    }

    /** Reads and keeps the instructor's marks of the write-ups in {@code file} instead of marks.csv beside the gradebook. */
    public Grader marks(Path file) {
        this.marksFile = file == null ? null : file.toAbsolutePath().normalize();
        return this;
    }

    /** Where the marks of the write-ups are read and kept when the gradebook goes to {@code out}. */
    public Path marksFile(Path out) {
        return marksFile != null ? marksFile : out.toAbsolutePath().normalize().resolve(Marks.FILE);
    }

    /** Grades every .ipynb in {@code submissions} and writes the gradebook into {@code out}. */
    public List<StudentResult> gradeAll(Path submissions, Path out) throws IOException, InterruptedException {
        // Each student's kernel runs in its own working folder: a relative path would point elsewhere there.
        submissions = submissions.toAbsolutePath().normalize();
        out = out.toAbsolutePath().normalize();
        if (!Files.isDirectory(submissions)) {
            throw new IllegalArgumentException("no such folder of submissions: " + submissions);
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(submissions)) {
            files = s.filter(p -> p.getFileName().toString().endsWith(".ipynb")).sorted().collect(Collectors.toList());
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no .ipynb file in " + submissions);
        }
        Path marksAt = marksFile(out);
        Marks marks = writeups.isEmpty() ? Marks.empty() : Marks.read(marksAt);  // a broken file stops the run here
        List<StudentResult> results = new ArrayList<>();
        for (Path f : files) {
            StudentResult r = grade(f, out);
            results.add(r);
            log.printf(java.util.Locale.ROOT, "%-24s %d/%d  %.1f s%s%n", r.student(), r.passed(), exercises.size(),
                    r.time().toMillis() / 1000.0, r.note().isEmpty() ? "" : "  (" + r.note() + ")");
            // after each student: a long class shows progress
            Gradebook.write(exercises(), writeups(), results, marks, out);
        }
        if (!writeups.isEmpty()) keepMarks(marksAt, results, out);
        return results;
    }

    /**
     * Adds a row for each graded student and write-up to the marks file, keeping every mark in it, and shows the
     * marks in the gradebook. The file is read again here: a mark typed while the class was graded is kept too.
     */
    private void keepMarks(Path file, List<StudentResult> results, Path out) throws IOException {
        Marks marks = Marks.read(file).with(results);
        marks.write(file);
        Gradebook.write(exercises(), writeups(), results, marks, out);
        Set<String> students = results.stream().map(StudentResult::student).collect(Collectors.toSet());
        marks.problems(students, Set.copyOf(writeups()), file).forEach(log::println);
        long unmarked = results.stream().flatMap(r -> r.writeups().stream().filter(a -> a.words() > 0
                && marks.mark(r.student(), a.writeup()).isEmpty())).count();
        if (unmarked > 0) log.println(unmarked + " write-up(s) to mark by hand: fill the mark column of " + file);
    }

    /** Grades one student's notebook. */
    StudentResult grade(Path file, Path out) throws IOException, InterruptedException {
        String student = file.getFileName().toString().replaceFirst("\\.ipynb$", "");
        Notebook mine;
        try {
            mine = Notebook.read(file);
        } catch (IllegalArgumentException | IOException | com.google.gson.JsonParseException e) {
            return failedAll(student, "not a notebook: " + e.getMessage());
        }
        Submission sub;
        List<Writeup.Answer> answers = new ArrayList<>();
        try {
            sub = Submission.assemble(source, exercises, mine);
            for (Writeup w : writeups) answers.add(w.answerIn(mine));   // text only: never part of the run
        } catch (RuntimeException e) {
            return failedAll(student, "the notebook's cells could not be read: " + e.getMessage());
        }
        Path work = Files.createDirectories(out.resolve("work").resolve(student)).toAbsolutePath();
        Path logs = Files.createDirectories(out.resolve("logs"));
        Path executed = Files.createDirectories(out.resolve("executed")).resolve(student + ".ipynb");
        Files.deleteIfExists(executed);
        Path assembled = work.resolve("graded-" + student + ".ipynb");
        sub.assembled.write(assembled);
        Path written = work.resolve("executed-" + student + ".ipynb"); // the run writes only in its own folder
        Files.deleteIfExists(written);
        String heap = "-Xmx" + limits.heapMib() + "m";
        List<String> command = KernelProcess.command(List.of(heap, "-D" + ENGINE_JVM_ARGS + "=" + heap,
                // output past the kernel's cap spills to files (up to 64 MB a cell and rank) in a folder here, deleted below
                "-Djava.io.tmpdir=" + work), List.of("execute", "--allow-errors",
                "--timeout", String.valueOf(limits.cell().toSeconds()),
                "--notebook-timeout", String.valueOf(limits.student().toSeconds()),
                "--output", written.toString(), assembled.toString()));
        Map<String, String> env = new java.util.HashMap<>(Map.of("MPI2NCCL_STRICT_CHECKS", "0")); // a wrong answer prints its hint
        long seed = freshSeed();
        env.put(org.mpi2nccl.lessons.Grading.SEED_ENV, Long.toString(seed)); // inputs nobody saw before: DataCheck
        if (mpjHome != null) env.put("MPJ_HOME", mpjHome); // found here, where the toolkit's folders are in view
        if (bwrap != null) command = Sandbox.wrap(bwrap, command, work, readOnly);
        KernelProcess.Ended ended = KernelProcess.run(command, work, env, logs.resolve(student + ".log").toFile(),
                limits.student().plus(JVM_SLACK), limits.processes());
        deleteSpilledOutput(work);
        if (Files.isRegularFile(written, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            Files.move(written, executed); // not a link the run made to a file of the grader's
        }
        String note = ended.killed() ? ended.killedFor()
                : ended.exitCode() != 0 ? "the kernel JVM ended with exit code " + ended.exitCode() + " (see logs/"
                + student + ".log)" : "";
        List<Verdict> verdicts = new ArrayList<>();
        Notebook result = Files.exists(executed) ? Notebook.read(executed) : null;
        for (Exercise ex : exercises) {
            if (sub.missing.containsKey(ex.name())) {
                verdicts.add(Verdict.failed(ex.name(), sub.missing.get(ex.name())));
            } else if (result == null) {
                verdicts.add(Verdict.failed(ex.name(), "the notebook did not run" + (note.isEmpty() ? "" : ": " + note)));
            } else {
                Verdict v = Verdict.read(ex, result, note.isEmpty() ? null : note);
                var byData = DataCheck.of(ex.name());
                if (byData.isPresent()) v = DataCheck.judge(ex, byData.get(), result, seed, DataCheck.ranksOf(ex, source, ranks), v);
                v = HowCheck.judge(ex, source, sub.assembled, v);   // right numbers, built the way the exercise asks
                String edited = sub.editedChecks.get(ex.name());
                verdicts.add(edited == null ? v : new Verdict(v.exercise(), v.passed(), v.detail() + " (" + edited + ")"));
            }
        }
        StudentResult.Run run = result != null ? StudentResult.Run.EXECUTED
                : ended.killed() ? StudentResult.Run.KILLED : StudentResult.Run.NO_NOTEBOOK;
        return new StudentResult(student, verdicts, ended.elapsed(), note, ended.pids(), run, answers);
    }

    /**
     * The text a cell printed beyond what the notebook shows: a student printing for ever must not fill the disk.
     * The kernel deletes its folder when it ends; one killed at the limit cannot, so its folder goes here.
     */
    private void deleteSpilledOutput(Path work) throws IOException {
        if (bwrap == null) {
            CellOutputFolder.deleteDeadKernels(work);
            return;
        }
        // Sandboxed, every process of the run ended with its namespace, and the pids in the folders' names were
        // the namespace's own (the same numbers belong to other processes here): every folder the toolkit made in
        // the run's temporary folder (its private folder, cut output) goes.
        List<Path> spilled;
        try (Stream<Path> s = Files.list(work)) {
            spilled = s.filter(p -> p.getFileName().toString().startsWith("mpi2nccl-")
                    && Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)).collect(Collectors.toList());
        }
        spilled.forEach(org.mpi2nccl.files.PrivateTemp::deleteTree); // a link the run made is deleted, not its target
    }

    private StudentResult failedAll(String student, String why) {
        List<Verdict> v = exercises.stream().map(e -> Verdict.failed(e.name(), why)).collect(Collectors.toList());
        List<Writeup.Answer> none = writeups.stream().map(w -> Writeup.Answer.missing(w.name(), why)).toList();
        return new StudentResult(student, v, Duration.ZERO, why, Set.of(), StudentResult.Run.NOT_STARTED, none);
    }

    /** A grading seed: random, never 0 (0 means the lesson's own inputs), different for every run. */
    private static long freshSeed() {
        long s;
        do {
            s = SEEDS.nextLong() >>> 1;   // positive: it travels as a plain number in the environment
        } while (s == 0);
        return s;
    }

    /**
     * Why these grades say nothing about the students, or "" when they do: when every kernel that was started
     * ended without an executed notebook, the grader's own set-up failed (a wrong path, a broken install), and every
     * student would get 0 for it.
     */
    public static String toolFailure(List<StudentResult> results) {
        List<StudentResult> started = results.stream().filter(r -> r.run() != StudentResult.Run.NOT_STARTED).toList();
        if (started.isEmpty() || started.stream().anyMatch(r -> r.run() != StudentResult.Run.NO_NOTEBOOK)) return "";
        return "no student's kernel wrote its executed notebook (" + started.size() + " started): the grader could not"
                + " run the lesson, so every grade would be 0 for the grader's fault. The logs folder says why.";
    }
}
