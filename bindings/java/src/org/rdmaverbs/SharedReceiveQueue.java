package org.rdmaverbs;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/** A shared receive queue (ibv_create_srq) on a PD: the receives of the QPs
 * made with it ({@link QpInit#srq}). A posted receive's buffers are held
 * until its completion is reaped (whichever QP's it is), or the SRQ is
 * closed. Closing it first closes the QPs using it, then destroys it
 * (ibv_destroy_srq). */
public final class SharedReceiveQueue extends Resource {
    private final Pointer srq;
    private final List<QueuePair.Posted> posted = new ArrayList<>();
    private Memory scratch;
    private final Memory bad = new Memory(8);

    /** Room for maxWr receives of maxSge SGEs each. */
    public SharedReceiveQueue(ProtectionDomain pd, int maxWr, int maxSge) throws RdmaVerbsException {
        super(true);
        RdmaVerbs.ibv_srq_init_attr a = new RdmaVerbs.ibv_srq_init_attr();
        a.attr.max_wr = maxWr;
        a.attr.max_sge = maxSge;
        srq = RdmaVerbs.ibv_create_srq(pd.handle(), a);
        opened(pd);
    }

    /** An SRQ this binding did not make (the tests' fake). */
    SharedReceiveQueue(ProtectionDomain pd, Pointer srq) {
        super(false);
        this.srq = srq;
        opened(pd);
    }

    @Override
    public Pointer handle() {
        check();
        return srq;
    }

    /** Posts receives, joined in one list, in one ibv_post_srq_recv. A
     * failure throws RdmaVerbsException (the errno returned); those from the
     * one refused on were not posted. */
    public synchronized void postRecv(RecvWork... wrs) throws RdmaVerbsException {
        check();
        if (wrs.length == 0) return;
        Memory m = RecvWork.layOut(scratch, wrs);
        scratch = m;
        int before = posted.size();
        for (RecvWork w : wrs) posted.add(new QueuePair.Posted(w.wrId, w));
        bad.setLong(0, 0);
        int r = Calls.POST_SRQ_RECV.invokeInt(new Object[] {srq, m, bad});
        if (r != 0) {
            int refused = QueuePair.unposted(bad.getLong(0), Pointer.nativeValue(m), Calls.RECV_WR, wrs.length);
            posted.subList(before + refused, posted.size()).clear();
            throw new RdmaVerbsException("ibv_post_srq_recv", r, (wrs.length - refused) + " of " + wrs.length
                                         + " work requests not posted");
        }
    }

    /** How many posted receives it holds. */
    public synchronized int held() {
        return posted.size();
    }

    /** A receive's completion reaped: the first receive of wrId released. */
    synchronized void completed(long wrId) {
        for (Iterator<QueuePair.Posted> it = posted.iterator(); it.hasNext();) {
            if (it.next().wrId() == wrId) {
                it.remove();
                return;
            }
        }
    }

    @Override
    void destroy() throws RdmaVerbsException {
        RdmaVerbs.ibv_destroy_srq(srq);
    }

    @Override
    synchronized void released() {
        posted.clear();
    }
}
