package org.mpi2nccl.tensor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The registry from {@link Device} to {@link Backend}. Every backend, the CPU's too, comes from a {@link BackendProvider}
 * found with {@link ServiceLoader}, so this package depends on none of them.
 */
public final class Backends {
    private Backends() {}

    private static final Map<Device, Backend> OPEN = new ConcurrentHashMap<>();
    private static volatile Backend cpu;           // asked for on every CPU operation: kept apart from the map

    public static Backend get(Device device) {
        if (device.isCpu()) {
            Backend b = cpu;
            return b != null ? b : (cpu = openProvided(device));
        }
        return OPEN.computeIfAbsent(device, Backends::openProvided);
    }

    /** Every device a backend is available for here: the CPU first, then each provided device. */
    public static List<Device> available() {
        List<Device> devices = new ArrayList<>();
        devices.add(Device.cpu());
        for (BackendProvider p : providers()) {
            if (p.kind() == Device.Kind.CPU) continue;
            for (int i = 0; i < safeCount(p); i++) devices.add(new Device(p.kind(), i));
        }
        return devices;
    }

    /** True when a backend for this device can be opened here. */
    public static boolean isAvailable(Device device) {
        BackendProvider p = provider(device.kind());
        return p != null && device.index() < safeCount(p);
    }

    private static Backend openProvided(Device device) {
        BackendProvider p = provider(device.kind());
        if (p == null) {
            throw new IllegalStateException("no backend for " + device + " in this build: the "
                    + device.kind().name().toLowerCase() + " backend is not on the class path (use Device.cpu())");
        }
        int count = safeCount(p);
        if (device.index() >= count) {
            String why = count == 0 ? p.unavailableReason() : count + " device(s) present, indices 0.." + (count - 1);
            throw new IllegalStateException("cannot use " + device + ": " + why);
        }
        return p.open(device.index());
    }

    private static int safeCount(BackendProvider p) {
        try {
            return p.deviceCount();
        } catch (RuntimeException | LinkageError e) {
            return 0;
        }
    }

    private static BackendProvider provider(Device.Kind kind) {
        for (BackendProvider p : providers()) if (p.kind() == kind) return p;
        return null;
    }

    private static volatile List<BackendProvider> providers;

    private static List<BackendProvider> providers() {
        List<BackendProvider> list = providers;
        if (list == null) {
            list = new ArrayList<>();
            ServiceLoader.load(BackendProvider.class, Backends.class.getClassLoader()).forEach(list::add);
            providers = list = List.copyOf(list);
        }
        return list;
    }
}
