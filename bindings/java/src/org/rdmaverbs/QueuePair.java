package org.rdmaverbs;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.ArrayDeque;
import java.util.Iterator;

/** An endpoint's QP ({@link Endpoint#createQp}): posts work requests, and
 * holds what each posted one uses (its SendWork or RecvWork, its MRs and
 * their buffers) until its completion is reaped by
 * {@link CompletionQueue#poll} (for an unsignaled send: the next signaled
 * one's completion; the send queue completes in order), or until the QP
 * is closed. Closing it destroys the QP (rdma_destroy_qp). */
public final class QueuePair extends Resource {
    private final Endpoint ep;
    private final Pointer id, qp;
    private final int qpNum;
    private final CompletionQueue sendCq, recvCq;
    private final SharedReceiveQueue srq;
    /** What the posted work requests use, in the order posted. */
    private final ArrayDeque<Posted> sends = new ArrayDeque<>(), recvs = new ArrayDeque<>();
    private Memory scratch;
    private final Memory bad = new Memory(8);

    record Posted(long wrId, Object work) {}

    QueuePair(Endpoint ep, Pointer id, QpInit init) throws RdmaVerbsException {
        super(true);
        RdmaVerbs.ibv_qp_init_attr a = new RdmaVerbs.ibv_qp_init_attr();
        a.send_cq = init.sendCq.handle();
        a.recv_cq = init.recvCq.handle();
        a.srq = init.srq == null ? null : init.srq.handle();
        a.cap.max_send_wr = init.maxSendWr;
        a.cap.max_recv_wr = init.srq == null ? init.maxRecvWr : 0;
        a.cap.max_send_sge = init.maxSendSge;
        a.cap.max_recv_sge = init.srq == null ? init.maxRecvSge : 0;
        a.cap.max_inline_data = init.maxInlineData;
        a.qp_type = RdmaVerbs.IBV_QPT_RC;
        a.sq_sig_all = init.signalAll ? 1 : 0;
        RdmaVerbs.rdma_create_qp(id, init.pd.handle(), a);
        this.ep = ep;
        this.id = id;
        qp = new RdmaVerbs.rdma_cm_id(id).qp;
        qpNum = new RdmaVerbs.ibv_qp(qp).qp_num;
        sendCq = init.sendCq;
        recvCq = init.recvCq;
        srq = init.srq;
        attach(init.pd);
    }

    /** A QP this binding did not make (the tests' fake), with its number. */
    QueuePair(Endpoint ep, ProtectionDomain pd, Pointer qp, int qpNum, CompletionQueue sendCq,
              CompletionQueue recvCq, SharedReceiveQueue srq) {
        super(false);
        this.ep = ep;
        this.id = null;
        this.qp = qp;
        this.qpNum = qpNum;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.srq = srq;
        attach(pd);
    }

    private void attach(ProtectionDomain pd) {
        opened(ep, pd, sendCq, recvCq, srq);
        sendCq.attach(this);
        recvCq.attach(this);
    }

    @Override
    public Pointer handle() {
        check();
        return qp;
    }

    /** Its number (ibv_qp.qp_num), as completions give it. */
    public int qpNum() {
        return qpNum;
    }

    /** How many posted work requests it holds (their buffers with them). */
    public synchronized int held() {
        return sends.size() + recvs.size();
    }

    /** Posts wrs, joined in one list, in one ibv_post_send. What they use is
     * held until their completions are reaped. A failure throws
     * RdmaVerbsException (the errno ibv_post_send returned); the work
     * requests from the one refused (*bad_wr) on were not posted. */
    public void postSend(SendWork... wrs) throws RdmaVerbsException {
        synchronized (this) {
            check();
            int n = wrs.length;
            if (n == 0) return;
            int nsge = 0;
            for (SendWork w : wrs) {
                for (Sge s : w.sges) s.mr().check();
                nsge += w.sges.length;
            }
            long size = (long) n * Calls.SEND_WR + (long) nsge * Calls.SGE;
            Memory m = scratch(size);
            long base = Pointer.nativeValue(m), sges = (long) n * Calls.SEND_WR;
            int s = 0;
            for (int i = 0; i < n; i++) {
                SendWork w = wrs[i];
                long o = (long) i * Calls.SEND_WR;
                m.setLong(o + Calls.SW_WR_ID, w.wrId);
                m.setLong(o + Calls.SW_NEXT, i + 1 < n ? base + o + Calls.SEND_WR : 0);
                m.setLong(o + Calls.SW_SG_LIST, w.sges.length > 0 ? base + sges + (long) s * Calls.SGE : 0);
                m.setInt(o + Calls.SW_NUM_SGE, w.sges.length);
                m.setInt(o + Calls.SW_OPCODE, w.opcode);
                m.setInt(o + Calls.SW_SEND_FLAGS, w.flags);
                if (w.opcode == RdmaVerbs.IBV_WR_SEND_WITH_IMM || w.opcode == RdmaVerbs.IBV_WR_RDMA_WRITE_WITH_IMM) {
                    m.setInt(o + Calls.SW_IMM_DATA, Calls.net(w.imm));
                }
                if (w.opcode == RdmaVerbs.IBV_WR_ATOMIC_CMP_AND_SWP || w.opcode == RdmaVerbs.IBV_WR_ATOMIC_FETCH_AND_ADD) {
                    m.setLong(o + Calls.SW_ATOMIC_REMOTE_ADDR, w.remoteAddr);
                    m.setLong(o + Calls.SW_ATOMIC_COMPARE_ADD, w.compareAdd);
                    m.setLong(o + Calls.SW_ATOMIC_SWAP, w.swap);
                    m.setInt(o + Calls.SW_ATOMIC_RKEY, w.rkey);
                } else if (w.opcode != RdmaVerbs.IBV_WR_SEND && w.opcode != RdmaVerbs.IBV_WR_SEND_WITH_IMM) {
                    m.setLong(o + Calls.SW_RDMA_REMOTE_ADDR, w.remoteAddr);   // writes, reads
                    m.setInt(o + Calls.SW_RDMA_RKEY, w.rkey);
                }
                for (Sge g : w.sges) Calls.sge(m, sges + (long) s++ * Calls.SGE, g);
            }
            // Held before the call: a completion may be reaped (by another
            // thread) as soon as the card has it.
            for (SendWork w : wrs) sends.add(new Posted(w.wrId, w));
            bad.setLong(0, 0);
            int r = Calls.POST_SEND.invokeInt(new Object[] {qp, m, bad});
            if (r != 0) {
                int refused = unposted(bad.getLong(0), base, Calls.SEND_WR, n);
                for (int i = refused; i < n; i++) sends.pollLast();
                throw new RdmaVerbsException("ibv_post_send", r, (n - refused) + " of " + n + " work requests not posted");
            }
        }
    }

    /** Posts receives to the QP's own receive queue, in one ibv_post_recv;
     * their buffers held until their completions are reaped. */
    public void postRecv(RecvWork... wrs) throws RdmaVerbsException {
        synchronized (this) {
            check();
            if (srq != null) throw new IllegalStateException("the QP's receives come from its SRQ");
            if (wrs.length == 0) return;
            Memory m = RecvWork.layOut(scratch, wrs);
            scratch = m;
            for (RecvWork w : wrs) recvs.add(new Posted(w.wrId, w));
            bad.setLong(0, 0);
            int r = Calls.POST_RECV.invokeInt(new Object[] {qp, m, bad});
            if (r != 0) {
                int refused = unposted(bad.getLong(0), Pointer.nativeValue(m), Calls.RECV_WR, wrs.length);
                for (int i = refused; i < wrs.length; i++) recvs.pollLast();
                throw new RdmaVerbsException("ibv_post_recv", r, (wrs.length - refused) + " of " + wrs.length
                                             + " work requests not posted");
            }
        }
    }

    /** The index of the work request *bad_wr points to (0 if it points to
     * none of them: none posted). */
    static int unposted(long bad, long base, int size, int n) {
        return bad >= base && bad < base + (long) n * size ? (int) ((bad - base) / size) : 0;
    }

    private Memory scratch(long size) {
        if (scratch == null || scratch.size() < size) scratch = new Memory(Math.max(size, 1024));
        scratch.clear(size);
        return scratch;
    }

    /** A completion of this QP, reaped by a CQ: what it used is released,
     * with the unsignaled sends posted before it. */
    void completed(Completion c) {
        boolean recv;
        synchronized (this) {
            recv = c.ok() ? c.isRecv() : !find(sends, c.wrId());
            if (!recv) {
                dropThrough(sends, c.wrId());
                return;
            }
            if (srq == null) {
                dropThrough(recvs, c.wrId());
                return;
            }
        }
        srq.completed(c.wrId());
    }

    private static boolean find(ArrayDeque<Posted> q, long wrId) {
        for (Posted p : q) {
            if (p.wrId() == wrId) return true;
        }
        return false;
    }

    /** Drops the posted work requests up to the first of wrId (none if no
     * one is of wrId). */
    private static void dropThrough(ArrayDeque<Posted> q, long wrId) {
        if (!find(q, wrId)) return;
        for (Iterator<Posted> it = q.iterator(); it.hasNext();) {
            Posted p = it.next();
            it.remove();
            if (p.wrId() == wrId) return;
        }
    }

    @Override
    void destroy() {
        RdmaVerbs.rdma_destroy_qp(id);
    }

    @Override
    void released() {
        sendCq.detach(this);
        recvCq.detach(this);
        ep.forget(this);
        synchronized (this) {
            sends.clear();
            recvs.clear();
        }
    }
}
