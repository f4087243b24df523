package org.rdmaverbs;

/** A work request of a send queue (an ibv_send_wr), for
 * {@link QueuePair#postSend}: a send, an RDMA write or read, an atomic.
 * Signaled by default (its completion is what releases its buffers): see
 * {@link #unsignaled}. Immediate data is given in host order. */
public final class SendWork {
    final long wrId;
    final int opcode;
    final Sge[] sges;
    int flags = RdmaVerbs.IBV_SEND_SIGNALED;
    int imm;
    long remoteAddr;
    int rkey;
    long compareAdd, swap;

    private SendWork(long wrId, int opcode, Sge[] sges) {
        for (Sge s : sges) {
            if (s == null) throw new NullPointerException("an Sge is null");
        }
        this.wrId = wrId;
        this.opcode = opcode;
        this.sges = sges.clone();
    }

    /** IBV_WR_SEND of the bytes of sges, in order. */
    public static SendWork send(long wrId, Sge... sges) {
        return new SendWork(wrId, RdmaVerbs.IBV_WR_SEND, sges);
    }

    /** IBV_WR_SEND_WITH_IMM: a send with 32 bits of immediate data. */
    public static SendWork sendWithImm(long wrId, int imm, Sge... sges) {
        SendWork w = new SendWork(wrId, RdmaVerbs.IBV_WR_SEND_WITH_IMM, sges);
        w.imm = imm;
        return w;
    }

    /** IBV_WR_RDMA_WRITE of sges to remoteAddr of the peer's MR of rkey. */
    public static SendWork write(long wrId, long remoteAddr, int rkey, Sge... sges) {
        return remote(new SendWork(wrId, RdmaVerbs.IBV_WR_RDMA_WRITE, sges), remoteAddr, rkey);
    }

    /** IBV_WR_RDMA_WRITE_WITH_IMM: a write, and immediate data for a
     * receive of the peer's. */
    public static SendWork writeWithImm(long wrId, long remoteAddr, int rkey, int imm, Sge... sges) {
        SendWork w = remote(new SendWork(wrId, RdmaVerbs.IBV_WR_RDMA_WRITE_WITH_IMM, sges), remoteAddr, rkey);
        w.imm = imm;
        return w;
    }

    /** IBV_WR_RDMA_READ of remoteAddr into sges. */
    public static SendWork read(long wrId, long remoteAddr, int rkey, Sge... sges) {
        return remote(new SendWork(wrId, RdmaVerbs.IBV_WR_RDMA_READ, sges), remoteAddr, rkey);
    }

    /** IBV_WR_ATOMIC_FETCH_AND_ADD: add to the peer's 8-byte word, its old
     * value into result (8 bytes, 8-aligned, in host order). */
    public static SendWork fetchAdd(long wrId, Sge result, long remoteAddr, int rkey, long add) {
        SendWork w = remote(new SendWork(wrId, RdmaVerbs.IBV_WR_ATOMIC_FETCH_AND_ADD, new Sge[] {result}), remoteAddr,
                            rkey);
        w.compareAdd = add;
        return w;
    }

    /** IBV_WR_ATOMIC_CMP_AND_SWP: the peer's word becomes swap if it was
     * compare; its old value into result. */
    public static SendWork compareSwap(long wrId, Sge result, long remoteAddr, int rkey, long compare, long swap) {
        SendWork w = remote(new SendWork(wrId, RdmaVerbs.IBV_WR_ATOMIC_CMP_AND_SWP, new Sge[] {result}), remoteAddr,
                            rkey);
        w.compareAdd = compare;
        w.swap = swap;
        return w;
    }

    private static SendWork remote(SendWork w, long remoteAddr, int rkey) {
        w.remoteAddr = remoteAddr;
        w.rkey = rkey;
        return w;
    }

    /** The IBV_SEND_* flags, all of them (IBV_SEND_SIGNALED by default). */
    public SendWork flags(int sendFlags) {
        flags = sendFlags;
        return this;
    }

    /** With IBV_SEND_SOLICITED: the peer's CQ armed for solicited
     * completions only makes an event for it. */
    public SendWork solicited() {
        flags |= RdmaVerbs.IBV_SEND_SOLICITED;
        return this;
    }

    /** Without IBV_SEND_SIGNALED: no completion of its own; its buffers are
     * released with the next signaled one's completion (the send queue
     * completes in order), or when the QP is closed. */
    public SendWork unsignaled() {
        flags &= ~RdmaVerbs.IBV_SEND_SIGNALED;
        return this;
    }

    public long wrId() {
        return wrId;
    }
}
