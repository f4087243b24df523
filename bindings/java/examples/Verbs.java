import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.rdmaverbs.RdmaVerbs;
import org.rdmaverbs.RdmaVerbsException;
import org.rdmaverbs.RdmaVerbs.ibv_recv_wr;
import org.rdmaverbs.RdmaVerbs.ibv_send_wr;
import org.rdmaverbs.RdmaVerbs.ibv_sge;
import org.rdmaverbs.RdmaVerbs.ibv_wc;

/** The verbs exchange of bindings/verbs-protocol.md from Java, as the client
 * against the C peer's server ("peer verbs server ADDR PORT"), through the
 * raw API only: the RDMAVERBS_1.3 exports (ibv_post_send,
 * ibv_post_srq_recv, ibv_poll_cq, ibv_req_notify_cq) and the real librdmacm
 * and libibverbs calls (an event channel and an id, a PD, two CQs, the
 * receive CQ's completion channel, an SRQ, the id's QP on them, MRs).
 * Usage: Verbs client ADDR PORT */
public final class Verbs {
    static final int SLOT = 64, SLOTS = 8;
    static final long INITIAL = 0x1122334455667788L, ADD = 0x1000000000000001L;
    static final long SWAP = 0x0fedcba987654321L, STALE_SWAP = 0xdeaddeaddeaddeadL;
    static final long CQ_CONTEXT = 0xc0ffee;   // the receive CQ's cq_context, as ibv_get_cq_event gives it back
    static final int WAIT_MS = 60000;
    static final int[] SERVER_LENS = {8, 16, 24, 32, 40};
    static final int RECV = RdmaVerbs.IBV_WC_GRH;   // a receive's flags on RoCE (rxe)

    /** libc's poll, for the channels' file descriptors. */
    interface Libc extends Library {
        int poll(Pointer fds, long nfds, int timeout);
    }

    static final Libc LIBC = Native.load("c", Libc.class);

    static void fail(String what) {
        System.err.println("verbs client: " + what);
        System.exit(1);
    }

    static void check(boolean ok, String what) {
        if (!ok) fail(what);
    }

    /** Waits (WAIT_MS) for a channel's file descriptor to be readable. */
    static void readable(int fd, String what) {
        Memory p = new Memory(8);   // struct pollfd: fd, events POLLIN, revents
        p.setInt(0, fd);
        p.setShort(4, (short) 1);
        p.setShort(6, (short) 0);
        int n = LIBC.poll(p, 1, WAIT_MS);
        check(n == 1, what + (n < 0 ? " (poll: errno " + Native.getLastError() + ")" : ""));
    }

    /** The channel's next rdma_cm event: of the type wanted, for id, status
     * 0; read, then acknowledged (its memory is librdmacm's). */
    static void event(Pointer channel, int want, Pointer id) throws RdmaVerbsException {
        readable(new RdmaVerbs.rdma_event_channel(channel).fd, "no rdma_cm event within the wait");
        PointerByReference ev = new PointerByReference();
        RdmaVerbs.rdma_get_cm_event(channel, ev);
        RdmaVerbs.rdma_cm_event e = new RdmaVerbs.rdma_cm_event(ev.getValue());
        int kind = e.event, status = e.status;
        Pointer of = e.id;
        RdmaVerbs.rdma_ack_cm_event(ev.getValue());
        check(kind == want && status == 0 && id.equals(of), "rdma_cm event " + RdmaVerbs.rdma_event_str(kind)
              + " status " + status + "; want " + RdmaVerbs.rdma_event_str(want));
    }

    /** One completion, every field (bindings/verbs-protocol.md): what verbs
     * defines, and rxe's values where it does not (0 for what RC leaves). */
    static void completion(ibv_wc wc, long wrId, int opcode, int length, int flags, int imm, int qpNum) {
        long[] got = {wc.wr_id, wc.status, wc.opcode, wc.byte_len, wc.wc_flags, Integer.reverseBytes(wc.imm_data),
                      wc.qp_num, wc.vendor_err, wc.src_qp, wc.pkey_index, wc.slid, wc.sl, wc.dlid_path_bits};
        long[] want = {wrId, RdmaVerbs.IBV_WC_SUCCESS, opcode, length, flags, imm, qpNum, 0, 0, 0, 0, 0, 0};
        check(Arrays.equals(got, want), "completion " + hex(got) + "; want " + hex(want) + " ("
              + RdmaVerbs.ibv_wc_status_str(wc.status) + ")");
    }

    static String hex(long[] v) {
        StringBuilder b = new StringBuilder("(");
        for (long x : v) b.append(b.length() > 1 ? ", " : "").append(String.format("%#x", x));
        return b.append(")").toString();
    }

    /** Polls cq until n completions (up to 8 at once). */
    static ibv_wc[] completions(Pointer cq, int n) throws InterruptedException, RdmaVerbsException {
        ibv_wc[] out = new ibv_wc[n];
        int got = 0, polls = 0;
        while (got < n) {
            ibv_wc[] wc = new ibv_wc[Math.min(8, n - got)];
            int r = RdmaVerbs.ibv_poll_cq(cq, wc.length, wc);
            System.arraycopy(wc, 0, out, got, r);
            got += r;
            if (r == 0) {
                check(++polls < WAIT_MS, "too few completions within the wait");
                Thread.sleep(1);
            }
        }
        return out;
    }

    /** The client's objects: made on the id's context, the QP on them. */
    static final class Side {
        final Pointer id, pd, channel, scq, rcq, srq, qp;
        final int qpNum;
        // The buffers live as long as this object: the MRs and the posted
        // work requests point into them (teardown keeps them reachable).
        final Memory recv = new Memory(SLOTS * SLOT), send = new Memory(5 * SLOT), atom = new Memory(24);
        final Pointer recvMr, sendMr, atomMr;
        final ibv_recv_wr[] recvs = (ibv_recv_wr[]) new ibv_recv_wr().toArray(SLOTS);
        final ibv_sge[] recvSges = (ibv_sge[]) new ibv_sge().toArray(SLOTS);

        Side(Pointer id) throws RdmaVerbsException {
            this.id = id;
            Pointer ctx = new RdmaVerbs.rdma_cm_id(id).verbs;
            pd = RdmaVerbs.ibv_alloc_pd(ctx);
            channel = RdmaVerbs.ibv_create_comp_channel(ctx);
            scq = RdmaVerbs.ibv_create_cq(ctx, 16, null, null, 0);
            rcq = RdmaVerbs.ibv_create_cq(ctx, 16, new Pointer(CQ_CONTEXT), channel, 0);
            RdmaVerbs.ibv_srq_init_attr srqAttr = new RdmaVerbs.ibv_srq_init_attr();
            srqAttr.attr.max_wr = SLOTS;
            srqAttr.attr.max_sge = 1;
            srq = RdmaVerbs.ibv_create_srq(pd, srqAttr);
            RdmaVerbs.ibv_qp_init_attr attr = new RdmaVerbs.ibv_qp_init_attr();
            attr.send_cq = scq;
            attr.recv_cq = rcq;
            attr.srq = srq;
            attr.cap.max_send_wr = 8;
            attr.cap.max_send_sge = 2;
            attr.qp_type = RdmaVerbs.IBV_QPT_RC;
            RdmaVerbs.rdma_create_qp(id, pd, attr);
            qp = new RdmaVerbs.rdma_cm_id(id).qp;
            RdmaVerbs.ibv_qp q = new RdmaVerbs.ibv_qp(qp);
            check(scq.equals(q.send_cq) && rcq.equals(q.recv_cq) && srq.equals(q.srq),
                  "the id's QP is not on the CQs and the SRQ given");
            qpNum = q.qp_num;
            recv.clear();
            send.clear();
            atom.clear();
            check(Pointer.nativeValue(atom) % 8 == 0, "the atomics' words are not 8-byte aligned");
            recvMr = reg(recv, RdmaVerbs.IBV_ACCESS_LOCAL_WRITE);
            sendMr = reg(send, 0);
            atomMr = reg(atom, RdmaVerbs.IBV_ACCESS_LOCAL_WRITE | RdmaVerbs.IBV_ACCESS_REMOTE_ATOMIC
                         | RdmaVerbs.IBV_ACCESS_REMOTE_READ);
            // The SRQ's receives, one list: slot i, wr_id 0x100 + i. JNA
            // writes the argument; the rest of the list is ours to write.
            for (int i = 0; i < SLOTS; i++) {
                recvSges[i].addr = Pointer.nativeValue(recv) + SLOT * i;
                recvSges[i].length = SLOT;
                recvSges[i].lkey = lkey(recvMr);
                recvSges[i].write();
                recvs[i].wr_id = 0x100 + i;
                recvs[i].sg_list = recvSges[i].getPointer();
                recvs[i].num_sge = 1;
                recvs[i].next = i + 1 < SLOTS ? recvs[i + 1].getPointer() : null;
                recvs[i].write();
            }
            RdmaVerbs.ibv_post_srq_recv(srq, recvs[0], new PointerByReference());
        }

        Pointer reg(Memory buf, int access) throws RdmaVerbsException {
            return RdmaVerbs.ibv_reg_mr_iova2(pd, buf, buf.size(), Pointer.nativeValue(buf), access);
        }

        static int lkey(Pointer mr) {
            return new RdmaVerbs.ibv_mr(mr).lkey;
        }

        /** Posts a list of send work requests (toArray's, joined here by
         * next) over sges in one ibv_post_send; then their completions. The
         * SGEs are JNA memory the requests point to: kept reachable until
         * the call returned. */
        ibv_wc[] post(ibv_send_wr[] wrs, Object sges) throws InterruptedException, RdmaVerbsException {
            for (int i = 0; i < wrs.length; i++) {
                wrs[i].next = i + 1 < wrs.length ? wrs[i + 1].getPointer() : null;
                wrs[i].write();
            }
            RdmaVerbs.ibv_post_send(qp, wrs[0], new PointerByReference());
            Reference.reachabilityFence(sges);
            return completions(scq, wrs.length);
        }

        /** The receive CQ's next event on its completion channel: checked,
         * acknowledged, the CQ armed again (solicitedOnly), then polled: the
         * completions, up to 8 in one ibv_poll_cq. */
        ibv_wc[] nextEvent(int solicitedOnly) throws RdmaVerbsException {
            readable(new RdmaVerbs.ibv_comp_channel(channel).fd, "no completion event within the wait");
            PointerByReference cq = new PointerByReference(), context = new PointerByReference();
            RdmaVerbs.ibv_get_cq_event(channel, cq, context);
            check(rcq.equals(cq.getValue()) && Pointer.nativeValue(context.getValue()) == CQ_CONTEXT,
                  "the event is not the receive CQ's");
            RdmaVerbs.ibv_ack_cq_events(cq.getValue(), 1);
            RdmaVerbs.ibv_req_notify_cq(cq.getValue(), solicitedOnly);
            ibv_wc[] wc = new ibv_wc[8];
            return Arrays.copyOf(wc, RdmaVerbs.ibv_poll_cq(cq.getValue(), 8, wc));
        }

        /** In the order the objects depend on each other (every CQ event
         * acknowledged first: ibv_destroy_cq waits for it). */
        void teardown() throws RdmaVerbsException {
            RdmaVerbs.rdma_destroy_qp(id);
            RdmaVerbs.ibv_destroy_srq(srq);
            RdmaVerbs.ibv_destroy_cq(scq);
            RdmaVerbs.ibv_destroy_cq(rcq);
            RdmaVerbs.ibv_destroy_comp_channel(channel);
            for (Pointer mr : new Pointer[] {recvMr, sendMr, atomMr}) RdmaVerbs.ibv_dereg_mr(mr);
            RdmaVerbs.ibv_dealloc_pd(pd);
            RdmaVerbs.rdma_destroy_id(id);
            // The buffers were in use until the MRs went: not collected before.
            Reference.reachabilityFence(recv);
            Reference.reachabilityFence(send);
            Reference.reachabilityFence(atom);
        }
    }

    static ibv_send_wr[] sendWrs(int n) {
        return (ibv_send_wr[]) new ibv_send_wr().toArray(n);
    }

    public static void main(String[] args) throws InterruptedException, RdmaVerbsException {
        if (args.length != 3 || !args[0].equals("client")) {
            System.err.println("usage: Verbs client ADDR PORT");
            System.exit(2);
        }
        // 0. Set up: an event channel and an id, the address and route
        // resolved, the objects and the QP, the SRQ's receives, the receive
        // CQ armed; connect.
        RdmaVerbs.rdma_addrinfo hints = new RdmaVerbs.rdma_addrinfo();
        hints.ai_port_space = RdmaVerbs.RDMA_PS_TCP;
        PointerByReference res = new PointerByReference(), idRef = new PointerByReference();
        RdmaVerbs.rdma_getaddrinfo(args[1], args[2], hints, res);
        Pointer channel = RdmaVerbs.rdma_create_event_channel();
        RdmaVerbs.rdma_create_id(channel, idRef, null, RdmaVerbs.RDMA_PS_TCP);
        Pointer id = idRef.getValue();
        RdmaVerbs.rdma_resolve_addr(id, null, new RdmaVerbs.rdma_addrinfo(res.getValue()).ai_dst_addr, 2000);
        event(channel, RdmaVerbs.RDMA_CM_EVENT_ADDR_RESOLVED, id);
        RdmaVerbs.rdma_resolve_route(id, 2000);
        event(channel, RdmaVerbs.RDMA_CM_EVENT_ROUTE_RESOLVED, id);
        Side s = new Side(id);
        RdmaVerbs.ibv_req_notify_cq(s.rcq, 0);
        RdmaVerbs.rdma_conn_param param = new RdmaVerbs.rdma_conn_param();
        param.responder_resources = 1;
        param.initiator_depth = 1;
        param.retry_count = 7;
        param.rnr_retry_count = 7;
        RdmaVerbs.rdma_connect(id, param);
        event(channel, RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED, id);

        // 1. Keys, the first event; the CQ armed again for solicited completions.
        ibv_wc[] wc = s.nextEvent(1);
        check(wc.length == 1, "the keys' event: " + wc.length + " completions");
        completion(wc[0], 0x100, RdmaVerbs.IBV_WC_RECV, SLOT, RECV, 0, s.qpNum);
        ByteBuffer keys = s.recv.getByteBuffer(0, SLOT).order(ByteOrder.LITTLE_ENDIAN);
        long word = keys.getLong(0), initial = keys.getLong(16);
        int rkey = keys.getInt(8);
        check(initial == INITIAL, String.format("the word's value %#x is not the initial one", initial));

        // 2. Atomics, one list: fetch-and-add, compare-and-swap, a stale one.
        ibv_send_wr[] wrs = sendWrs(3);
        ibv_sge[] sges = (ibv_sge[]) new ibv_sge().toArray(3);
        long[] swaps = {0, SWAP, STALE_SWAP};
        for (int k = 0; k < 3; k++) {
            sges[k].addr = Pointer.nativeValue(s.atom) + 8 * k;
            sges[k].length = 8;
            sges[k].lkey = Side.lkey(s.atomMr);
            sges[k].write();
            ibv_send_wr w = wrs[k];
            w.wr_id = 0x700 + k;
            w.sg_list = sges[k].getPointer();
            w.num_sge = 1;
            w.send_flags = RdmaVerbs.IBV_SEND_SIGNALED;
            w.opcode = k > 0 ? RdmaVerbs.IBV_WR_ATOMIC_CMP_AND_SWP : RdmaVerbs.IBV_WR_ATOMIC_FETCH_AND_ADD;
            w.wr.setType("atomic");
            w.wr.atomic.remote_addr = word;
            w.wr.atomic.rkey = rkey;
            w.wr.atomic.compare_add = k > 0 ? INITIAL + ADD : ADD;
            w.wr.atomic.swap = swaps[k];
        }
        wc = s.post(wrs, sges);
        int[] atomicOps = {RdmaVerbs.IBV_WC_FETCH_ADD, RdmaVerbs.IBV_WC_COMP_SWAP, RdmaVerbs.IBV_WC_COMP_SWAP};
        for (int k = 0; k < 3; k++) completion(wc[k], 0x700 + k, atomicOps[k], 8, 0, 0, s.qpNum);
        long[] old = s.atom.getLongArray(0, 3);
        check(Arrays.equals(old, new long[] {INITIAL, INITIAL + ADD, SWAP}),
              "the atomics' old values " + hex(old));

        // 3. Four sends into the server's SRQ, one list, two SGEs each,
        // immediate data 0xc0de0000 + k (network order).
        for (int k = 0; k < 4; k++) {
            for (int j = 0; j < SLOT; j++) s.send.setByte(SLOT * k + j, (byte) (0xc1 + 7 * k + j));
        }
        wrs = sendWrs(4);
        sges = (ibv_sge[]) new ibv_sge().toArray(8);
        for (int k = 0; k < 4; k++) {
            long base = Pointer.nativeValue(s.send) + SLOT * k;
            sges[2 * k].addr = base;
            sges[2 * k].length = 16;
            sges[2 * k + 1].addr = base + 16;
            sges[2 * k + 1].length = SLOT - 16;
            for (ibv_sge g : new ibv_sge[] {sges[2 * k], sges[2 * k + 1]}) {
                g.lkey = Side.lkey(s.sendMr);
                g.write();
            }
            wrs[k].wr_id = 0x300 + k;
            wrs[k].sg_list = sges[2 * k].getPointer();
            wrs[k].num_sge = 2;
            wrs[k].opcode = RdmaVerbs.IBV_WR_SEND_WITH_IMM;
            wrs[k].send_flags = RdmaVerbs.IBV_SEND_SIGNALED;
            wrs[k].imm_data = Integer.reverseBytes(0xc0de0000 + k);
        }
        wc = s.post(wrs, sges);
        for (int k = 0; k < 4; k++) {
            completion(wc[k], 0x300 + k, RdmaVerbs.IBV_WC_SEND, SLOT, RdmaVerbs.IBV_WC_WITH_IMM, 0, s.qpNum);
        }

        // 4. The server's five, the event at the last (solicited): five at once.
        wc = s.nextEvent(0);
        check(wc.length == 5, "the solicited event: " + wc.length + " completions in one poll, not 5");
        for (int k = 0; k < 5; k++) {
            int length = SERVER_LENS[k];
            completion(wc[k], 0x101 + k, RdmaVerbs.IBV_WC_RECV, length, RECV | RdmaVerbs.IBV_WC_WITH_IMM,
                       0x5e4d0000 + k, s.qpNum);
            byte[] got = s.recv.getByteArray(SLOT * (1 + k), length);
            for (int j = 0; j < length; j++) check(got[j] == (byte) (0x51 + 7 * k + j), "message " + k + ": its bytes differ");
        }

        // 5. DONE, and the server's DONE with the word's last value.
        s.send.clear(SLOT);
        s.send.write(0, "DONE".getBytes(), 0, 4);
        wrs = sendWrs(1);
        ibv_sge sge = new ibv_sge();
        sge.addr = Pointer.nativeValue(s.send);
        sge.length = SLOT;
        sge.lkey = Side.lkey(s.sendMr);
        sge.write();
        wrs[0].wr_id = 0x500;
        wrs[0].sg_list = sge.getPointer();
        wrs[0].num_sge = 1;
        wrs[0].opcode = RdmaVerbs.IBV_WR_SEND;
        wrs[0].send_flags = RdmaVerbs.IBV_SEND_SIGNALED;
        completion(s.post(wrs, sge)[0], 0x500, RdmaVerbs.IBV_WC_SEND, SLOT, 0, 0, s.qpNum);
        wc = s.nextEvent(0);
        check(wc.length == 1, "the DONE event: " + wc.length + " completions");
        completion(wc[0], 0x106, RdmaVerbs.IBV_WC_RECV, SLOT, RECV, 0, s.qpNum);
        String done = new String(s.recv.getByteArray(6 * SLOT, 4));
        long last = s.recv.getByteBuffer(6 * SLOT, SLOT).order(ByteOrder.LITTLE_ENDIAN).getLong(8);
        check(done.equals("DONE") && last == SWAP, String.format("no DONE with the word's value: %s %#x", done, last));

        // 6. Teardown.
        RdmaVerbs.rdma_disconnect(id);
        event(channel, RdmaVerbs.RDMA_CM_EVENT_DISCONNECTED, id);
        s.teardown();
        RdmaVerbs.rdma_destroy_event_channel(channel);
        RdmaVerbs.rdma_freeaddrinfo(res.getValue());
        System.out.println("verbs: PASS role=client completions=15 bytes=248");
    }
}
