package org.rdmaverbs;

/** What {@link Endpoint#createQp} makes: an RC QP on a PD, a send CQ and a
 * receive CQ (the same one, or two), an SRQ or none, and its capacities:
 * by default 16 send and 16 receive work requests (none with an SRQ), one
 * SGE each, no inline data, and every send work request completed
 * (sq_sig_all 1), so that a send whose completion is awaited makes one.
 * {@code signalAll(false)}: then only sends posted with the signaled flag
 * complete (a {@link SendWork} has it unless made
 * {@link SendWork#unsignaled}). */
public final class QpInit {
    final ProtectionDomain pd;
    final CompletionQueue sendCq, recvCq;
    SharedReceiveQueue srq;
    int maxSendWr = 16, maxRecvWr = 16, maxSendSge = 1, maxRecvSge = 1, maxInlineData;
    boolean signalAll = true;

    /** One CQ for both queues. */
    public QpInit(ProtectionDomain pd, CompletionQueue cq) {
        this(pd, cq, cq);
    }

    public QpInit(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq) {
        this.pd = pd;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
    }

    /** The receives come from srq (the QP's own receive queue unused). */
    public QpInit srq(SharedReceiveQueue srq) {
        this.srq = srq;
        return this;
    }

    public QpInit maxSendWr(int n) {
        maxSendWr = n;
        return this;
    }

    public QpInit maxRecvWr(int n) {
        maxRecvWr = n;
        return this;
    }

    public QpInit maxSendSge(int n) {
        maxSendSge = n;
        return this;
    }

    public QpInit maxRecvSge(int n) {
        maxRecvSge = n;
        return this;
    }

    public QpInit maxInlineData(int n) {
        maxInlineData = n;
        return this;
    }

    /** Whether every send work request completes, signaled or not
     * (sq_sig_all 1, the default); false: then only sends posted with the
     * signaled flag complete. */
    public QpInit signalAll(boolean on) {
        signalAll = on;
        return this;
    }
}
