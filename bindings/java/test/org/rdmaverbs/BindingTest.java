package org.rdmaverbs;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;

/** The Java binding on a machine without RDMA: every function bound, the
 * refused inputs surfacing as RdmaVerbsException with their errno, the raw
 * interface's results as C's, the completion statuses, RDMAVERBS_LIBRARY
 * honoured; then each of librdmaverbs' functions at its symbol version
 * (VersionsTest), the raw data path on the recording provider
 * (RawPostsTest) and the objects (ObjectsTest and what it runs). Exits 1 on
 * a failure. */
public final class BindingTest {
    static int failures;

    /** RdmaVerbsException is an IOException, declared (checked) by each
     * function that can fail and by close, by none that cannot. */
    static void exceptions() throws Exception {
        int declaring = 0, not = 0;
        for (Method m : RdmaVerbs.class.getDeclaredMethods()) {
            String name = m.getName();
            if (!java.lang.reflect.Modifier.isPublic(m.getModifiers())
                || !(name.startsWith("rdma_") || name.startsWith("ibv_") || name.startsWith("__"))) continue;
            if (Arrays.asList(m.getExceptionTypes()).contains(RdmaVerbsException.class)) declaring++; else not++;
        }
        Class<?>[] none = {};
        check(java.io.IOException.class.isAssignableFrom(RdmaVerbsException.class)
              && Arrays.equals(RdmaVerbs.class.getMethod("rdma_post_send", Pointer.class, Pointer.class, Pointer.class,
                                                         long.class, Pointer.class, int.class).getExceptionTypes(),
                               new Class<?>[] {RdmaVerbsException.class})
              && Arrays.equals(RdmaVerbs.class.getMethod("ibv_inc_rkey", int.class).getExceptionTypes(), none)
              && Arrays.equals(RdmaVerbs.class.getMethod("dst_port", Pointer.class).getExceptionTypes(), none)
              && Arrays.equals(Resource.class.getMethod("close").getExceptionTypes(), new Class<?>[] {RdmaVerbsException.class}),
              "RdmaVerbsException is a checked IOException: declared by the " + declaring + " functions that can fail"
              + " (rdma_post_send) and by close, by none of the " + not + " others (ibv_inc_rkey, dst_port)");
    }

    static void check(boolean ok, String what) {
        System.out.println((ok ? "java: ok: " : "java: FAIL: ") + what);
        if (!ok) failures++;
    }

    /** A call that may fail as C does. */
    interface Call { void run() throws RdmaVerbsException; }

    static int errnoOf(Call c) {
        try {
            c.run();
            return 0;
        } catch (RdmaVerbsException e) {
            return e.errno();
        }
    }

    public static void main(String[] args) throws Exception {
        int n = 0, lib = RdmaVerbs.Lib.class.getMethods().length, cm = RdmaVerbs.Cm.class.getMethods().length,
            verbs = RdmaVerbs.Verbs.class.getMethods().length;
        for (Method m : RdmaVerbs.class.getDeclaredMethods()) {
            String name = m.getName();
            n += (name.startsWith("rdma_") || name.startsWith("ibv_") || name.startsWith("__")) ? 1 : 0;
        }
        check(n == lib + cm + verbs && lib == VersionsTest.exports("RDMAVERBS_ALL_EXPORTS").size() && cm > 0 && verbs > 0,
              n + " functions, " + lib + " of librdmaverbs, " + cm + " of librdmacm, " + verbs + " of libibverbs");
        VersionsTest.run();
        exceptions();
        RdmaVerbs.ibv_wc wc = new RdmaVerbs.ibv_wc();
        check(errnoOf(() -> RdmaVerbs.rdma_post_send(null, null, null, 0, null, 0)) == RdmaVerbs.EINVAL,
              "rdma_post_send(NULL, ...): RdmaVerbsException, errno EINVAL");
        check(errnoOf(() -> RdmaVerbs.rdma_get_send_comp_timeout(null, wc, 0)) == RdmaVerbs.EINVAL,
              "rdma_get_send_comp_timeout(NULL, ...): EINVAL");
        check(errnoOf(() -> RdmaVerbs.rdma_get_local_addr(null)) == RdmaVerbs.EINVAL,
              "rdma_get_local_addr(NULL): EINVAL");
        check(errnoOf(() -> RdmaVerbs.rdma_seterrno(RdmaVerbs.EIO)) == RdmaVerbs.EIO &&
              RdmaVerbs.rdma_seterrno(0) == 0, "rdma_seterrno(EIO): EIO; rdma_seterrno(0): 0");
        int r = RdmaVerbs.LIB.rdma_post_send(null, null, null, 0, null, 0);
        check(r == -1 && Native.getLastError() == RdmaVerbs.EINVAL, "raw rdma_post_send: -1, errno EINVAL");
        Pointer p = RdmaVerbs.LIB.rdma_get_peer_addr(null);
        check(p == null && Native.getLastError() == RdmaVerbs.EINVAL, "raw rdma_get_peer_addr: NULL, EINVAL");
        check(wc.size() == 48, "sizeof(struct ibv_wc) is 48");
        RawPostsTest.vectored();
        RawPostsTest.verbs13();
        RawPostsTest.sgeLists();
        RawPostsTest.emptyArrays();
        check(RdmaVerbs.ibv_wc_status_str(RdmaVerbs.IBV_WC_LOC_PROT_ERR).equals("local protection error") &&
              RdmaVerbs.ibv_wc_status_str(RdmaVerbs.IBV_WC_SUCCESS).equals("success") &&
              RdmaVerbs.IBV_WC_TM_RNDV_INCOMPLETE == 23,
              "ibv_wc_status_str: 'local protection error', 'success'; IBV_WC_TM_RNDV_INCOMPLETE is 23");
        String env = System.getenv("RDMAVERBS_LIBRARY");
        if (env != null && !env.isEmpty()) {
            String real = Paths.get(env).toRealPath().toString();
            check(Files.readString(Paths.get("/proc/self/maps")).contains(real),
                  "RDMAVERBS_LIBRARY's copy is the one mapped");
        }
        ObjectsTest.run();
        if (failures > 0) System.exit(1);
        System.out.println("java: all checks passed");
    }
}
