package org.rdmaverbs;

import com.sun.jna.Function;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/** Loads the libraries: by their sonames, through the dynamic loader;
 * RDMAVERBS_LIBRARY names another copy of librdmaverbs, whose functions
 * are each found by its symbol version (dlvsym: ibv_post_send at
 * RDMAVERBS_1.3, the method's {@link Version}), never a same-named symbol
 * of another library. */
final class Loader {
    private Loader() {}

    interface Dl extends Library {
        Pointer dlopen(String file, int mode);
        Pointer dlvsym(Pointer handle, String name, String version);
        String dlerror();
    }

    private static final int RTLD_NOW = 2;
    private static final Dl DL = Native.load("c", Dl.class);

    /** The address each versioned method calls, by name (for the tests). */
    static final Map<String, Pointer> ADDRESSES = new HashMap<>();

    /** The path or soname of librdmaverbs this binding calls. */
    static String library() {
        String env = System.getenv("RDMAVERBS_LIBRARY");
        return env != null && !env.isEmpty() ? env : "librdmaverbs.so.1";
    }

    /** lib{which}.so.1 (rdmaverbs, rdmacm, ibverbs). */
    static <T extends Library> T load(String which, Class<T> iface) {
        return which.equals("rdmaverbs") ? versioned(library(), iface) : Native.load("lib" + which + ".so.1", iface);
    }

    /** The address of name@version in the library, or null; a library
     * that does not load: UnsatisfiedLinkError saying which, where it was
     * looked for, and what provides it ({@link #missing}). */
    static Pointer symbol(String library, String name, String version) {
        DL.dlerror();   // found by JNA now (a look-up would clear dlopen's error), and cleared
        Pointer h = DL.dlopen(library, RTLD_NOW);
        if (h == null) throw new UnsatisfiedLinkError(missing(library, DL.dlerror()));
        return DL.dlvsym(h, name, version);
    }

    /** What a library that does not load is told with: which, where it was
     * looked for (RDMAVERBS_LIBRARY's path, or the dynamic loader's
     * places), dlopen's words, and what provides it. */
    static String missing(String library, String dlerror) {
        String env = System.getenv("RDMAVERBS_LIBRARY");
        String where = env != null && !env.isEmpty() && library.equals(env)
            ? "at RDMAVERBS_LIBRARY=" + env
            : "by the dynamic loader (LD_LIBRARY_PATH=" + java.util.Objects.toString(System.getenv("LD_LIBRARY_PATH"), "")
              + ", /etc/ld.so.cache, /lib, /usr/lib)";
        return library + " could not be loaded, looked for " + where + ": " + dlerror
            + "; install the package librdmaverbs1, or set RDMAVERBS_LIBRARY to the library's path"
            + " (a built tree's build/lib/librdmaverbs.so.1)";
    }

    /** iface's methods, each the function of its name at its Version in
     * library, called as JNA calls an interface's (errno saved right
     * after the call, for Native.getLastError). One that a later rdma-core
     * release brought (Version.since) is missing from a library built
     * against an older one's headers: its call then throws
     * UnsupportedOperationException saying so (loading does not fail). */
    private static <T extends Library> T versioned(String library, Class<T> iface) {
        Map<Method, Function> functions = new HashMap<>();
        Map<Method, String> missing = new HashMap<>();
        for (Method m : iface.getMethods()) {
            Version v = m.getAnnotation(Version.class);
            if (v == null) throw new IllegalStateException(m + " has no @Version");
            Pointer p = symbol(library, m.getName(), v.value());
            if (p == null && v.since() > 0) {
                missing.put(m, m.getName() + " is not in " + library + ": it came with rdma-core " + v.since()
                    + ", and this build of rdmaverbs was made against an older rdma-core's headers (rebuild it"
                    + " against rdma-core " + v.since() + " or later)");
                continue;
            }
            if (p == null) throw new UnsatisfiedLinkError(library + ": no " + m.getName() + "@" + v.value());
            functions.put(m, Function.getFunction(p, Function.C_CONVENTION));
            ADDRESSES.put(m.getName(), p);
        }
        Object proxy = Proxy.newProxyInstance(iface.getClassLoader(), new Class<?>[] {iface}, (self, m, args) -> {
            Function f = functions.get(m);
            if (missing.containsKey(m)) throw new UnsupportedOperationException(missing.get(m));
            if (f == null) {  // Object's methods
                switch (m.getName()) {
                case "hashCode": return System.identityHashCode(self);
                case "equals": return self == args[0];
                default: return iface.getName() + "(" + library + ")";
                }
            }
            return f.invoke(m.getReturnType(), args == null ? new Object[0] : args,
                            Collections.singletonMap("invoking-method", m));
        });
        return iface.cast(proxy);
    }
}
