package org.mpi2nccl.layers;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.mpi2nccl.tensor.WrongWayImport;

/**
 * The toolkit's floors, bottom to top: a package may use its own floor and the floors below, never one above; and no
 * two packages use each other, directly or round a circle. What a student reads first (tensors, autograd, models,
 * communicators, the data-parallel step) sits low and needs nothing of the launcher, the kernel or the classroom.
 */
class LayeringTest {
    /** Each floor's top-level packages (sub-packages go with them). */
    static final List<List<String>> FLOORS = List.of(
            List.of("files", "tensor", "html"),
            List.of("cuda", "autograd", "data"),
            List.of("nn", "optim", "comm"),
            List.of("parallel", "launch"),
            List.of("bench", "doctor"),
            List.of("lab"),
            List.of("kernel"),
            List.of("notebook", "lessons"),
            List.of("grade"),
            List.of("cli"));

    /**
     * What a student reads to learn the ideas: tensors, autograd, models, data, the CPU communicators and the
     * data-parallel step. It runs without a GPU and needs none of the GPU code below.
     */
    static final String[] CORE = {"org.mpi2nccl.files..", "org.mpi2nccl.tensor..", "org.mpi2nccl.autograd..",
            "org.mpi2nccl.data..", "org.mpi2nccl.nn..", "org.mpi2nccl.optim..", "org.mpi2nccl.comm", "org.mpi2nccl.parallel"};
    /** The GPU runtime and backend, NCCL, the graphed data-parallel step and the GPU timeline. */
    static final String[] GPU = {"org.mpi2nccl.cuda..", "org.mpi2nccl.comm.nccl..", "org.mpi2nccl.parallel.gpu..",
            "org.mpi2nccl.parallel.timing.."};

    private static JavaClasses toolkit;

    @BeforeAll
    static void importTheToolkit() {
        // the core comes as a jar or a classes folder (toolkit/core), the rest as this module's classes
        toolkit = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.mpi2nccl");
    }

    /** For each floor: its classes use nothing of the floors above. */
    static ArchRule floors() {
        List<ArchRule> rules = new ArrayList<>();
        for (int i = 0; i < FLOORS.size() - 1; i++) {
            List<String> above = new ArrayList<>();
            for (int j = i + 1; j < FLOORS.size(); j++) above.addAll(FLOORS.get(j));
            rules.add(noClasses().that().resideInAnyPackage(packages(FLOORS.get(i)))
                    .should().dependOnClassesThat().resideInAnyPackage(packages(above))
                    .because("floor " + i + " " + FLOORS.get(i) + " sits below " + above).allowEmptyShould(true));
        }
        return CompositeArchRule.of(rules);
    }

    private static String[] packages(List<String> names) {
        return names.stream().map(n -> "org.mpi2nccl." + n + "..").toArray(String[]::new);
    }

    @Test
    void everyPackageSitsOnItsFloor() {
        List<String> listed = FLOORS.stream().flatMap(List::stream).toList();
        List<String> found = toolkit.stream().map(c -> c.getPackageName().split("\\.")).filter(p -> p.length > 2)
                .map(p -> p[2]).distinct().sorted().toList();
        assertTrue(listed.containsAll(found), "packages on no floor: " + found.stream().filter(p -> !listed.contains(p)).toList()
                + ": put each on the floor of what it uses, in FLOORS");
        floors().check(toolkit);
    }

    @Test
    void theCoreNeedsNoGpuCode() {
        noClasses().that().resideInAnyPackage(CORE).should().dependOnClassesThat().resideInAnyPackage(GPU)
                .because("the core runs without a GPU: a GPU path plugs in through an interface of the core"
                        + " (DeviceMemoryBackend, Communicator)").check(toolkit);
    }

    @Test
    void theCoreModuleHoldsTheCoreAndNothingElse() {
        for (Class<?> c : List.of(org.mpi2nccl.tensor.NDArray.class, org.mpi2nccl.comm.ring.RingAllReduce.class,
                org.mpi2nccl.parallel.DataParallel.class)) {
            String where = c.getProtectionDomain().getCodeSource().getLocation().getPath();
            assertTrue(where.contains("core"), c.getName() + " comes from " + where + ", not the core module");
        }
        String gpu = org.mpi2nccl.cuda.CudaBackend.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        assertTrue(!gpu.contains("/core/") && !gpu.contains("mpi2nccl-core"), "the CUDA backend comes from " + gpu);
    }

    @Test
    void noPackagesUseEachOtherInACircle() {
        slices().matching("org.mpi2nccl.(**)").should().beFreeOfCycles().check(toolkit);
    }

    @Test
    void aWrongWayImportFailsTheCheckAndIsNamed() {
        JavaClasses wrong = new ClassFileImporter().importClasses(WrongWayImport.class,
                org.mpi2nccl.kernel.output.Display.class);
        AssertionError e = assertThrows(AssertionError.class, () -> floors().check(wrong));
        assertTrue(e.getMessage().contains(WrongWayImport.class.getName())
                && e.getMessage().contains("org.mpi2nccl.kernel.output.Display"), e.getMessage());
        System.out.println("a wrong-way import, as the check reports it: "
                + Arrays.stream(e.getMessage().split("\n")).filter(l -> l.contains("WrongWayImport")).findFirst().orElse(""));
    }
}
