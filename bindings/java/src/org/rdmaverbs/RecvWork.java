package org.rdmaverbs;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;

/** A receive (an ibv_recv_wr), for {@link QueuePair#postRecv} and
 * {@link SharedReceiveQueue#postRecv}: a message lands in sges, in order. */
public final class RecvWork {
    final long wrId;
    final Sge[] sges;

    public RecvWork(long wrId, Sge... sges) {
        for (Sge s : sges) {
            if (s == null) throw new NullPointerException("an Sge is null");
        }
        this.wrId = wrId;
        this.sges = sges.clone();
    }

    public long wrId() {
        return wrId;
    }

    /** Lays wrs out (joined by next, their SGEs after them) in scratch, or
     * in new memory if it is too small: the memory written. */
    static Memory layOut(Memory scratch, RecvWork[] wrs) {
        int nsge = 0;
        for (RecvWork w : wrs) {
            for (Sge s : w.sges) s.mr().check();
            nsge += w.sges.length;
        }
        long size = (long) wrs.length * Calls.RECV_WR + (long) nsge * Calls.SGE;
        Memory m = scratch != null && scratch.size() >= size ? scratch : new Memory(Math.max(size, 256));
        m.clear(size);
        long base = Pointer.nativeValue(m), sges = (long) wrs.length * Calls.RECV_WR;
        int s = 0;
        for (int i = 0; i < wrs.length; i++) {
            long o = (long) i * Calls.RECV_WR;
            m.setLong(o + Calls.RW_WR_ID, wrs[i].wrId);
            m.setLong(o + Calls.RW_NEXT, i + 1 < wrs.length ? base + o + Calls.RECV_WR : 0);
            m.setLong(o + Calls.RW_SG_LIST, wrs[i].sges.length > 0 ? base + sges + (long) s * Calls.SGE : 0);
            m.setInt(o + Calls.RW_NUM_SGE, wrs[i].sges.length);
            for (Sge g : wrs[i].sges) Calls.sge(m, sges + (long) s++ * Calls.SGE, g);
        }
        return m;
    }
}
