package org.rdmaverbs;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Paths;

/** The Java binding on a machine without RDMA: every function bound, the
 * refused inputs surfacing as RdmaVerbsException with their errno, the raw
 * interface's results as C's, the vectored posts checked SGE by SGE on the
 * recording provider (bindings/recorder.c, RDMAVERBS_RECORDER), the ports
 * in both orders, the completion statuses. Exits 1 on a failure. */
public final class BindingTest {
    static int failures;

    /** The recording provider: a fake id whose QP records each work request. */
    interface Recorder extends Library {
        Pointer recorder_id();
        int recorder_posts();
        String recorder_last();
    }

    static final Recorder REC = Native.load(System.getenv("RDMAVERBS_RECORDER"), Recorder.class);

    static RdmaVerbs.ibv_sge sge(long addr, int length, int lkey) {
        RdmaVerbs.ibv_sge s = new RdmaVerbs.ibv_sge();
        s.addr = addr;
        s.length = length;
        s.lkey = lkey;
        return s;
    }

    // What the provider records of each SGE.
    static final String SA = " sge=0x1000:0x10:0x11";
    static final String SB = " sge=0x8000000000002000:0x80000030:0x80000022";
    static final String SC = " sge=0x3000:0x40:0x33";

    static void recorded(int r, String want, String what) {
        String got = REC.recorder_last();
        check(r == 0 && got.equals(want), what + (got.equals(want) ? "" : ": recorded '" + got + "'"));
    }

    static void vectored() {
        Pointer id = REC.recorder_id();
        // An ordinary array of separately made structs (not toArray's).
        RdmaVerbs.ibv_sge a = sge(0x1000, 0x10, 0x11), b = sge(0x8000000000002000L, 0x80000030, 0x80000022),
            c = sge(0x3000, 0x40, 0x33);
        RdmaVerbs.ibv_sge[] sgl = new RdmaVerbs.ibv_sge[] {a, b, c};
        recorded(RdmaVerbs.rdma_post_sendv(id, new Pointer(0x300), sgl, 3, RdmaVerbs.IBV_SEND_SIGNALED),
                 "send wr_id=0x300 flags=0x2" + SA + SB + SC, "rdma_post_sendv(new ibv_sge[] {a, b, c}, 3): every SGE");
        recorded(RdmaVerbs.rdma_post_recvv(id, new Pointer(0x301), sgl, 2),
                 "recv wr_id=0x301" + SA + SB, "rdma_post_recvv(new ibv_sge[] {a, b, c}, 2): the first two SGEs");
        recorded(RdmaVerbs.rdma_post_readv(id, new Pointer(0x302), new RdmaVerbs.ibv_sge[] {b, c}, 2, 0,
                                           0xfedc000000001000L, 0x80000044),
                 "read wr_id=0x302 flags=0x0 remote=0xfedc000000001000 rkey=0x80000044" + SB + SC,
                 "rdma_post_readv(new ibv_sge[] {b, c}, 2): every SGE, the remote address and key");
        recorded(RdmaVerbs.rdma_post_writev(id, new Pointer(0x303), sgl, 3,
                                            RdmaVerbs.IBV_SEND_SIGNALED | RdmaVerbs.IBV_SEND_FENCE,
                                            0xfedc000000002000L, 0x55),
                 "write wr_id=0x303 flags=0x3 remote=0xfedc000000002000 rkey=0x55" + SA + SB + SC,
                 "rdma_post_writev(new ibv_sge[] {a, b, c}, 3): every SGE");
        RdmaVerbs.ibv_sge[] block = (RdmaVerbs.ibv_sge[]) new RdmaVerbs.ibv_sge().toArray(2);
        block[0].addr = 0x3000; block[0].length = 0x40; block[0].lkey = 0x33;
        block[1].addr = 0x1000; block[1].length = 0x10; block[1].lkey = 0x11;
        recorded(RdmaVerbs.rdma_post_sendv(id, new Pointer(0x304), block, 2, 0),
                 "send wr_id=0x304 flags=0x0" + SC + SA, "rdma_post_sendv(toArray(2), 2): every SGE");
        check(REC.recorder_posts() == 5, "5 work requests posted");
        String refused = "no exception";
        try {
            RdmaVerbs.rdma_post_sendv(id, new Pointer(0x305), sgl, 4, 0);
        } catch (IllegalArgumentException e) {
            refused = e.getMessage();
        }
        check(refused.equals("rdma_post_sendv: nsge is 4 but sgl has 3 elements") && REC.recorder_posts() == 5,
              "rdma_post_sendv(3 SGEs, 4): IllegalArgumentException, nothing posted (" + refused + ")");
        check(RdmaVerbs.src_port(id) == 18577 && RdmaVerbs.dst_port(id) == 50000,
              "src_port, dst_port: the ports in host order, 18577 and 50000");
        // x86-64: the network-order value as a little-endian integer, not negative
        check(RdmaVerbs.rdma_get_src_port(id) == 0x9148 && RdmaVerbs.rdma_get_dst_port(id) == 0x50c3,
              "rdma_get_src_port, rdma_get_dst_port: network order, 0x9148 and 0x50c3 (not negative)");
    }

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
        for (Method m : RdmaVerbs.class.getDeclaredMethods()) n += m.getName().startsWith("ibv_") ? 1 : 0;
        check(n == 32 && RdmaVerbs.Lib.class.getMethods().length == 20 &&
              RdmaVerbs.Cm.class.getMethods().length == 11 && RdmaVerbs.Verbs.class.getMethods().length == 1,
              "32 functions, 20 of librdmaverbs, 11 of librdmacm, 1 of libibverbs");
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
        vectored();
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
        if (failures > 0) System.exit(1);
        System.out.println("java: all checks passed");
    }
}
