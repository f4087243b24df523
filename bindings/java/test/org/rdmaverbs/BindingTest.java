package org.rdmaverbs;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Paths;

/** The Java binding on a machine without RDMA: every function bound, the
 * refused inputs surfacing as RdmaVerbsException with their errno, the raw
 * interface's results as C's. Exits 1 on a failure. */
public final class BindingTest {
    static int failures;

    static void check(boolean ok, String what) {
        System.out.println((ok ? "java: ok: " : "java: FAIL: ") + what);
        if (!ok) failures++;
    }

    interface Call { void run(); }

    static int errnoOf(Call c) {
        try {
            c.run();
            return 0;
        } catch (RdmaVerbsException e) {
            return e.errno();
        }
    }

    public static void main(String[] args) throws Exception {
        int n = 0;
        for (Method m : RdmaVerbs.class.getDeclaredMethods()) n += m.getName().startsWith("rdma_") ? 1 : 0;
        check(n == 31 && RdmaVerbs.Lib.class.getMethods().length == 20 &&
              RdmaVerbs.Cm.class.getMethods().length == 11, "31 functions, 20 of librdmaverbs, 11 of librdmacm");
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
        String env = System.getenv("RDMAVERBS_LIBRARY");
        if (env != null && !env.isEmpty()) {
            String real = Paths.get(env).toRealPath().toString();
            check(Files.readString(Paths.get("/proc/self/maps")).contains(real),
                  "RDMAVERBS_LIBRARY's copy is the one mapped");
        }
        if (failures > 0) System.exit(1);
        System.out.println("java: all checks passed");
    }
}
