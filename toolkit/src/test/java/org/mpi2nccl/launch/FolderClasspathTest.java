package org.mpi2nccl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A student's program that uses the toolkit's communicators (and so JavaCPP, through them), given to the launcher
 * as one folder of classes, or as {@code DIR/*}: the ranks find the toolkit's whole runtime without every jar listed.
 */
class FolderClasspathTest {
    private static final String PROGRAM = String.join("\n",
            "public class UsesToolkit {",
            "    public static void main(String[] args) throws Exception {",
            "        mpi.MPI.Init(args);",
            "        var comm = org.mpi2nccl.comm.mpj.MpjCommunicator.world();",
            "        float[] x = {comm.rank() + 1};",
            "        comm.allReduce(org.mpi2nccl.comm.HostBuffer.of(x), org.mpi2nccl.comm.Reduction.SUM);",
            "        Class.forName(\"org.bytedeco.javacpp.Pointer\");",
            "        System.out.println(\"sum \" + (int) x[0]);",
            "        mpi.MPI.Finalize();",
            "    }",
            "}");

    @ParameterizedTest
    @EnumSource(MpjDevice.class)
    void aProgramGivenAsOneFolderFindsTheToolkitsRuntime(MpjDevice device, @TempDir Path dir) throws Exception {
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Path source = Files.writeString(dir.resolve("UsesToolkit.java"), PROGRAM);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "-cp", System.getProperty("java.class.path"), "-d", classes.toString(),
                source.toString()), "the program compiles against the toolkit");
        JobResult r = Mpj.launch("UsesToolkit").device(device).ranks(2).classpath(List.of(classes))
                .timeout(Duration.ofSeconds(90)).run();
        assertTrue(r.succeeded(), r.lines().toString());
        assertEquals(List.of("sum 3"), r.stdout(0), r.lines().toString());

        Path jar = Files.createDirectories(dir.resolve("lib"));
        try (var out = new java.util.jar.JarOutputStream(Files.newOutputStream(jar.resolve("program.jar")))) {
            out.putNextEntry(new java.util.jar.JarEntry("UsesToolkit.class"));
            out.write(Files.readAllBytes(classes.resolve("UsesToolkit.class")));
        }
        r = Mpj.launch("UsesToolkit").device(device).ranks(2).classpath(jar + File.separator + "*")
                .timeout(Duration.ofSeconds(90)).run();
        assertTrue(r.succeeded(), "lib/* names the jars in lib: " + r.lines());
    }
}
