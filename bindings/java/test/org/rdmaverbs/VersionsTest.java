package org.rdmaverbs;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Map;
import java.util.TreeMap;

/** Every function of librdmaverbs bound at its symbol version, in
 * librdmaverbs.so.1; those a build lacks throw, naming their release. Run
 * by BindingTest. */
public final class VersionsTest {
    private VersionsTest() {}

    static void check(boolean ok, String what) {
        BindingTest.check(ok, what);
    }

    /** dladdr's answer. */
    @Structure.FieldOrder({"dli_fname", "dli_fbase", "dli_sname", "dli_saddr"})
    public static class DlInfo extends Structure {
        public String dli_fname;
        public Pointer dli_fbase;
        public String dli_sname;
        public Pointer dli_saddr;
    }

    interface Dl extends Library {
        Pointer dlopen(String file, int mode);
        Pointer dlvsym(Pointer handle, String name, String version);
        int dladdr(Pointer address, DlInfo info);
    }

    static final Dl DL = Native.load("c", Dl.class);

    /** {name: [node, since]} of an exports list: the build's
     * (RDMAVERBS_EXPORTS), or every row of the table (RDMAVERBS_ALL_EXPORTS). */
    static Map<String, String[]> exports(String variable) throws Exception {
        Map<String, String[]> out = new TreeMap<>();
        boolean head = true;
        for (String line : Files.readAllLines(Paths.get(System.getenv(variable)))) {
            if (line.startsWith("#")) continue;
            String[] f = line.split("\t");
            if (!head) out.put(f[0], new String[] {f[1], f[2]});
            head = false;
        }
        return out;
    }

    /** Every method of RdmaVerbs.LIB is a row of abi/exports.tsv, at its
     * node; each the build has calls the function dlvsym finds there, which
     * dladdr places in librdmaverbs.so.1 under its name; each it lacks
     * throws UnsupportedOperationException naming the release that brought
     * it. */
    static void run() throws Exception {
        String env = System.getenv("RDMAVERBS_LIBRARY");
        String library = env != null && !env.isEmpty() ? env : "librdmaverbs.so.1";
        Pointer h = DL.dlopen(library, 2);
        int n = 0, v13 = 0, bad = 0;
        Map<String, String> bound = new TreeMap<>();
        check(RdmaVerbs.LIB.toString().equals("org.rdmaverbs.RdmaVerbs$Lib(" + library + ")"),
              "RdmaVerbs.LIB: librdmaverbs' functions, of " + library);
        Map<String, String[]> built = exports("RDMAVERBS_EXPORTS");
        int lacking = 0;
        for (Method m : RdmaVerbs.Lib.class.getMethods()) {
            String version = m.getAnnotation(Version.class).value();
            bound.put(m.getName(), version);
            if (!built.containsKey(m.getName())) {
                lacking++;
                Object[] args = new Object[m.getParameterCount()];
                Class<?>[] types = m.getParameterTypes();
                for (int i = 0; i < args.length; i++) {
                    // zero of each primitive; null for a pointer
                    if (types[i].isPrimitive()) args[i] = java.lang.reflect.Array.get(java.lang.reflect.Array.newInstance(types[i], 1), 0);
                }
                try {
                    m.invoke(RdmaVerbs.LIB, args);
                    bad++;
                } catch (java.lang.reflect.InvocationTargetException e) {
                    String since = exports("RDMAVERBS_ALL_EXPORTS").get(m.getName())[1];
                    if (!(e.getCause() instanceof UnsupportedOperationException)
                        || !e.getCause().getMessage().contains(m.getName() + " is not in")
                        || !e.getCause().getMessage().contains("it came with rdma-core " + since + ",")) {
                        bad++;
                        System.out.println("java: " + m.getName() + ", which the build lacks: " + e.getCause());
                    }
                }
                continue;
            }
            Pointer p = Loader.ADDRESSES.get(m.getName());
            DlInfo info = new DlInfo();
            boolean ok = p != null && p.equals(DL.dlvsym(h, m.getName(), version)) && DL.dladdr(p, info) != 0
                && m.getName().equals(info.dli_sname) && info.dli_fname.contains("librdmaverbs.so")
                && (env == null || env.isEmpty() || Paths.get(info.dli_fname).toRealPath().equals(Paths.get(env).toRealPath()));
            if (!ok) {
                bad++;
                System.out.println("java: " + m.getName() + "@" + version + " is not what RdmaVerbs.LIB calls: "
                                   + p + " " + DL.dlvsym(h, m.getName(), version) + " " + info.dli_sname + " " + info.dli_fname);
            }
            n++;
            v13 += version.equals("RDMAVERBS_1.3") ? 1 : 0;
        }
        Map<String, String> listed = new TreeMap<>();
        exports("RDMAVERBS_ALL_EXPORTS").forEach((k, v) -> listed.put(k, v[0]));
        check(bad == 0 && bound.equals(listed) && v13 > 0, "the " + n + " functions of librdmaverbs (" + v13
              + " at RDMAVERBS_1.3), abi/exports.tsv's " + listed.size() + ", each the build has called at its version,"
              + " in librdmaverbs.so.1; the " + lacking + " it lacks throw, naming their release");
    }
}
