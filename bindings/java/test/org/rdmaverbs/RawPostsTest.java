package org.rdmaverbs;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;

/** The raw layer's data path on the recording provider (bindings/recorder,
 * RDMAVERBS_RECORDER), as C gets it: the vectored posts checked SGE by SGE,
 * and the RDMAVERBS_1.3 functions (ibv_post_send of a list with the wr
 * union, ibv_post_srq_recv, ibv_poll_cq into an ibv_wc[],
 * ibv_req_notify_cq, each failure convention; ibv_wr_set_sge_list and
 * ibv_advise_mr with an ordinary array; an array of 0 passed as an array),
 * the ports in both orders. Run by BindingTest. */
final class RawPostsTest {
    private RawPostsTest() {}

    static void check(boolean ok, String what) {
        BindingTest.check(ok, what);
    }

    static int errnoOf(BindingTest.Call c) {
        return BindingTest.errnoOf(c);
    }

    /** The recording provider: a fake id whose QP records each work request. */
    interface Recorder extends Library {
        Pointer recorder_id();
        Pointer recorder_qp();
        Pointer recorder_srq();
        Pointer recorder_cq();
        Pointer recorder_qp_ex();
        Pointer recorder_pd();
        void recorder_fail(int err);
        int recorder_posts();
        int recorder_polled_array();
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

    static void vectored() throws RdmaVerbsException {
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

    // What the provider records of the SGEs of the 1.3 posts.
    static final String SD = " sge=0x4000:0x8:0x44";

    static RdmaVerbs.ibv_wc[] completions() {
        RdmaVerbs.ibv_wc[] wc = new RdmaVerbs.ibv_wc[4];    // null elements: made by ibv_poll_cq
        wc[3] = new RdmaVerbs.ibv_wc();
        wc[3].wr_id = 0xdead;
        return wc;
    }

    static boolean completionsAsRecorded(RdmaVerbs.ibv_wc[] wc) {
        int[] status = {RdmaVerbs.IBV_WC_SUCCESS, RdmaVerbs.IBV_WC_SUCCESS, RdmaVerbs.IBV_WC_REM_ACCESS_ERR};
        int[] opcode = {RdmaVerbs.IBV_WC_RECV, RdmaVerbs.IBV_WC_COMP_SWAP, RdmaVerbs.IBV_WC_FETCH_ADD};
        boolean ok = true;
        for (int i = 0; i < 3; i++) {
            RdmaVerbs.ibv_wc w = wc[i];
            boolean same = w.wr_id == 0x5000 + i && w.status == status[i] && w.opcode == opcode[i]
                && w.vendor_err == 0x100 + i && w.byte_len == 0x40 + i && w.imm_data == 0xa0b0c0d0 + i
                && w.qp_num == 0x1100 + i && w.src_qp == 0x2200 + i
                && w.wc_flags == (i == 0 ? RdmaVerbs.IBV_WC_WITH_IMM : 0) && w.pkey_index == 0x30 + i
                && Short.toUnsignedInt(w.slid) == 0x4400 + i && w.sl == 1 + i && w.dlid_path_bits == 0x50 + i;
            if (!same) System.out.println("java: completion " + i + ": " + w);
            ok &= same;
        }
        return ok && wc[3].wr_id == 0xdead && wc[3].status == 0 && wc[3].byte_len == 0;
    }

    static void verbs13() throws RdmaVerbsException {
        REC.recorder_id();
        Pointer qp = REC.recorder_qp(), cq = REC.recorder_cq(), srq = REC.recorder_srq();
        RdmaVerbs.ibv_sge[] sg = (RdmaVerbs.ibv_sge[]) new RdmaVerbs.ibv_sge().toArray(4);
        long[][] sges = {{0x1000, 0x10, 0x11}, {0x8000000000002000L, 0x80000030, 0x80000022}, {0x3000, 0x40, 0x33},
                         {0x4000, 8, 0x44}};
        for (int i = 0; i < 4; i++) {
            sg[i].addr = sges[i][0];
            sg[i].length = (int) sges[i][1];
            sg[i].lkey = (int) sges[i][2];
            sg[i].write();
        }
        // Three work requests joined by next: a send with immediate data over
        // two SGEs, a compare-and-swap and a fetch-and-add (the wr union's
        // atomic member, chosen by being the one set: no setType).
        RdmaVerbs.ibv_send_wr[] w = (RdmaVerbs.ibv_send_wr[]) new RdmaVerbs.ibv_send_wr().toArray(3);
        w[0].wr_id = 0x600;
        w[0].opcode = RdmaVerbs.IBV_WR_SEND_WITH_IMM;
        w[0].send_flags = RdmaVerbs.IBV_SEND_SIGNALED;
        w[0].imm_data = 0x0a0b0c0d;
        w[0].sg_list = sg[0].getPointer();
        w[0].num_sge = 2;
        w[0].next = w[1].getPointer();
        w[1].wr_id = 0x601;
        w[1].opcode = RdmaVerbs.IBV_WR_ATOMIC_CMP_AND_SWP;
        w[1].send_flags = RdmaVerbs.IBV_SEND_FENCE;
        w[1].wr.atomic.remote_addr = 0xfedc000000003000L;
        w[1].wr.atomic.rkey = 0x80000066;
        w[1].wr.atomic.compare_add = 0x1111222233334444L;
        w[1].wr.atomic.swap = 0x5555666677778888L;
        w[1].sg_list = sg[2].getPointer();
        w[1].num_sge = 1;
        w[1].next = w[2].getPointer();
        w[2].wr_id = 0x602;
        w[2].opcode = RdmaVerbs.IBV_WR_ATOMIC_FETCH_AND_ADD;
        w[2].wr.setType("atomic");
        w[2].wr.atomic.remote_addr = 0xfedc000000003008L;
        w[2].wr.atomic.rkey = 0x77;
        w[2].wr.atomic.compare_add = 0x8000000000000001L;
        w[2].sg_list = sg[3].getPointer();
        w[2].num_sge = 1;
        w[1].write();   // JNA writes the argument, w[0]; the rest of the list is the program's
        w[2].write();
        PointerByReference bad = new PointerByReference();
        recorded(RdmaVerbs.ibv_post_send(qp, w[0], bad),
                 "send_imm wr_id=0x600 flags=0x2 imm=0xa0b0c0d" + SA + SB
                 + " | cas wr_id=0x601 flags=0x1 remote=0xfedc000000003000 rkey=0x80000066"
                 + " compare=0x1111222233334444 swap=0x5555666677778888" + SC
                 + " | fadd wr_id=0x602 flags=0x0 remote=0xfedc000000003008 rkey=0x77 add=0x8000000000000001" + SD,
                 "ibv_post_send(3 work requests: send with imm over 2 SGEs, cas, fetch-and-add): every field");
        check(bad.getValue() == null && REC.recorder_posts() == 1, "ibv_post_send: *bad_wr untouched, one post");
        // The union written with a member set besides the chosen one: C sees the chosen.
        w[1].wr.rdma.rkey = 0x99;
        w[1].write();
        check(w[1].getPointer().getLong(40 + 16) == 0x5555666677778888L && w[1].getPointer().getInt(40 + 8) == 0x33334444,
              "a union member set besides the one chosen is not written");
        RdmaVerbs.ibv_send_wr both = new RdmaVerbs.ibv_send_wr();
        both.wr.rdma.rkey = 1;
        both.wr.ud.remote_qkey = 2;
        String refused = "no exception";
        try {
            both.write();
        } catch (IllegalStateException e) {
            refused = e.getMessage();
        }
        check(refused.startsWith("ibv_send_wr_wr: both rdma and ud are set"),
              "a union with two members set and no setType: IllegalStateException (" + refused + ")");
        // Failures: the provider's errno value, *bad_wr its first request; NULL refused.
        REC.recorder_fail(RdmaVerbs.ENOMEM);
        check(errnoOf(() -> RdmaVerbs.ibv_post_send(qp, w[2], bad)) == RdmaVerbs.ENOMEM
              && w[2].getPointer().equals(bad.getValue()) && REC.recorder_posts() == 1,
              "ibv_post_send failing with ENOMEM: RdmaVerbsException ENOMEM, *bad_wr the request");
        check(errnoOf(() -> RdmaVerbs.ibv_post_send(null, w[2], bad)) == RdmaVerbs.EINVAL
              && RdmaVerbs.LIB.ibv_post_send(qp, null, bad) == RdmaVerbs.EINVAL,
              "ibv_post_send(NULL, ...): EINVAL; raw, a NULL list: EINVAL returned");
        // Receives on the SRQ: a list of two.
        RdmaVerbs.ibv_recv_wr[] rw = (RdmaVerbs.ibv_recv_wr[]) new RdmaVerbs.ibv_recv_wr().toArray(2);
        rw[0].wr_id = 0x620;
        rw[0].sg_list = sg[0].getPointer();
        rw[0].num_sge = 1;
        rw[0].next = rw[1].getPointer();
        rw[1].wr_id = 0x621;
        rw[1].sg_list = sg[1].getPointer();
        rw[1].num_sge = 2;
        rw[1].write();
        recorded(RdmaVerbs.ibv_post_srq_recv(srq, rw[0], bad), "srq_recv wr_id=0x620" + SA + " | srq_recv wr_id=0x621" + SB + SC,
                 "ibv_post_srq_recv(a list of 2): every request and SGE");
        recorded(RdmaVerbs.ibv_post_recv(qp, rw[1], bad), "recv wr_id=0x621" + SB + SC, "ibv_post_recv: every SGE");
        // Completions: 3 of 4 filled, into an ibv_wc[] with null elements.
        RdmaVerbs.ibv_wc[] wc = completions();
        int got = RdmaVerbs.ibv_poll_cq(cq, 4, wc);
        check(got == 3 && completionsAsRecorded(wc), "ibv_poll_cq(cq, 4, ibv_wc[4]): 3, every field of each, the 4th untouched");
        refused = "no exception";
        try {
            RdmaVerbs.ibv_poll_cq(cq, 5, wc);
        } catch (IllegalArgumentException e) {
            refused = e.getMessage();
        }
        check(refused.equals("ibv_poll_cq: num_entries is 5 but wc has 4 elements"),
              "ibv_poll_cq(5 of an ibv_wc[4]): IllegalArgumentException (" + refused + ")");
        REC.recorder_fail(RdmaVerbs.EIO);
        check(errnoOf(() -> RdmaVerbs.ibv_poll_cq(cq, 4, completions())) == RdmaVerbs.EIO,
              "ibv_poll_cq failing (-1, errno EIO): RdmaVerbsException EIO");
        recorded(RdmaVerbs.ibv_req_notify_cq(cq, 1), "notify solicited_only=1", "ibv_req_notify_cq(cq, 1)");
        check(errnoOf(() -> RdmaVerbs.ibv_req_notify_cq(null, 0)) == RdmaVerbs.EINVAL, "ibv_req_notify_cq(NULL): EINVAL");
        check(RdmaVerbs.ibv_inc_rkey(0x123456ff) == 0x12345600 && RdmaVerbs.ibv_flow_label_to_udp_sport(0) >= 0xc000
              && RdmaVerbs.rdma_event_str(RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED).equals("RDMA_CM_EVENT_ESTABLISHED"),
              "ibv_inc_rkey, ibv_flow_label_to_udp_sport (an int, not negative), rdma_event_str");
    }

    /** The two other functions of an SGE array, with an ordinary array:
     * ibv_wr_set_sge_list on the provider's extended QP, ibv_advise_mr on
     * its PD, each SGE as the provider got it. */
    static void sgeLists() throws RdmaVerbsException {
        REC.recorder_id();
        Pointer qpx = REC.recorder_qp_ex(), pd = REC.recorder_pd();
        RdmaVerbs.ibv_sge a = sge(0x1000, 0x10, 0x11), b = sge(0x8000000000002000L, 0x80000030, 0x80000022),
            c = sge(0x3000, 0x40, 0x33);
        RdmaVerbs.ibv_wr_set_sge_list(qpx, 3, new RdmaVerbs.ibv_sge[] {a, b, c});
        recorded(0, "sge_list" + SA + SB + SC, "ibv_wr_set_sge_list(qpx, 3, new ibv_sge[] {a, b, c}): every SGE");
        RdmaVerbs.ibv_wr_set_sge_list(qpx, 2, new RdmaVerbs.ibv_sge[] {c, a, b});
        recorded(0, "sge_list" + SC + SA, "ibv_wr_set_sge_list(qpx, 2, new ibv_sge[] {c, a, b}): the first two SGEs");
        recorded(RdmaVerbs.ibv_advise_mr(pd, 1 /* IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE */,
                                         1 /* IBV_ADVISE_MR_FLAG_FLUSH */, new RdmaVerbs.ibv_sge[] {b, c, a}, 3),
                 "advise advice=0x1 flags=0x1" + SB + SC + SA,
                 "ibv_advise_mr(pd, PREFETCH_WRITE, FLUSH, new ibv_sge[] {b, c, a}, 3): every SGE");
        check(REC.recorder_posts() == 3, "3 calls recorded");
        String refused = "no exception";
        try {
            RdmaVerbs.ibv_advise_mr(pd, 0, 0, new RdmaVerbs.ibv_sge[] {a, b}, -1);
        } catch (IllegalArgumentException e) {
            refused = e.getMessage();
        }
        check(refused.equals("ibv_advise_mr: num_sge is -1, C's count is unsigned") && REC.recorder_posts() == 3,
              "ibv_advise_mr(2 SGEs, -1: an unsigned count of 4294967295): IllegalArgumentException, nothing called ("
              + refused + ")");
        refused = "no exception";
        try {
            RdmaVerbs.ibv_wr_set_sge_list(qpx, 3, new RdmaVerbs.ibv_sge[] {a, b});
        } catch (IllegalArgumentException e) {
            refused = e.getMessage();
        }
        check(refused.equals("ibv_wr_set_sge_list: num_sge is 3 but sg_list has 2 elements") && REC.recorder_posts() == 3,
              "ibv_wr_set_sge_list(2 SGEs, 3): IllegalArgumentException, nothing called (" + refused + ")");
    }

    /** An array given with a count of 0 is passed as an array (C gets a
     * pointer, not NULL): ibv_poll_cq's reaches the provider, which says
     * whether it got one (recorder_polled_array), and gives 0. */
    static void emptyArrays() throws RdmaVerbsException {
        Pointer cq = REC.recorder_cq();
        int r = RdmaVerbs.ibv_poll_cq(cq, 0, new RdmaVerbs.ibv_wc[4]);
        check(r == 0 && REC.recorder_polled_array() == 1,
              "ibv_poll_cq(cq, 0, new ibv_wc[4]): the provider gets the array, not NULL, and gives 0");
        r = RdmaVerbs.ibv_poll_cq(cq, 0, new RdmaVerbs.ibv_wc[0]);
        check(r == 0 && REC.recorder_polled_array() == 1, "ibv_poll_cq(cq, 0, new ibv_wc[0]): an array too");
        RdmaVerbs.ibv_wc[] wc = completions();
        RdmaVerbs.ibv_poll_cq(cq, 0, wc);
        check(REC.recorder_polled_array() == 1 && wc[0] == null && wc[3].wr_id == 0xdead,
              "ibv_poll_cq(cq, 0, wc): no element of wc made or written");
    }
}
