package org.mpi2nccl.kernel.jshell;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;

/**
 * Finds, in a class JShell compiled from a cell, a call that would end the JVM: {@code System.exit},
 * {@code Runtime.exit} or {@code Runtime.halt}, however it is reached in the source ({@code Runtime r =
 * Runtime.getRuntime(); r.exit(0)}, a method reference). {@link CellGuard} reads the source and misses calls
 * through a variable; a compiled call always names its method in the class's constant pool, which is read here.
 */
final class ExitCalls {
    private ExitCalls() {
    }

    /** "Runtime.exit", "Runtime.halt", "System.exit", or null when the class calls none of them. */
    static String find(byte[] classFile) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
            in.readInt();     // magic
            in.readInt();     // minor, major version
            int n = in.readUnsignedShort();
            String[] utf8 = new String[n];
            int[] classNameOf = new int[n];
            int[] refClass = new int[n];
            int[] refNameAndType = new int[n];
            int[] natName = new int[n];
            for (int i = 1; i < n; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> utf8[i] = in.readUTF();
                    case 7 -> classNameOf[i] = in.readUnsignedShort();
                    case 8, 16, 19, 20 -> in.readUnsignedShort();
                    case 3, 4 -> in.readInt();
                    case 5, 6 -> {
                        in.readLong();
                        i++;   // takes two entries
                    }
                    case 9, 11 -> in.readInt();
                    case 10 -> {
                        refClass[i] = in.readUnsignedShort();
                        refNameAndType[i] = in.readUnsignedShort();
                    }
                    case 12 -> {
                        natName[i] = in.readUnsignedShort();
                        in.readUnsignedShort();
                    }
                    case 15 -> {
                        in.readUnsignedByte();
                        in.readUnsignedShort();
                    }
                    case 17, 18 -> in.readInt();
                    default -> {
                        return null;   // a constant pool this reader does not know: let the source check decide
                    }
                }
            }
            for (int i = 1; i < n; i++) {
                if (refClass[i] == 0) continue;
                String owner = utf8[classNameOf[refClass[i]]];
                String name = utf8[natName[refNameAndType[i]]];
                if ("java/lang/Runtime".equals(owner) && ("exit".equals(name) || "halt".equals(name))) {
                    return "Runtime." + name;
                }
                if ("java/lang/System".equals(owner) && "exit".equals(name)) {
                    return "System.exit";
                }
            }
            return null;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
