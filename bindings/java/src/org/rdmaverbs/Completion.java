package org.rdmaverbs;

/** A completion (an ibv_wc), as {@link CompletionQueue#poll} reaped it.
 * The immediate data is in host order. A completion whose status is not
 * IBV_WC_SUCCESS is data, as in C: {@link #ok}, {@link #statusText}; its
 * opcode is then undefined.
 *
 * @param wrId the work request's wr_id
 * @param status an IBV_WC_* status
 * @param opcode an IBV_WC_* opcode (IBV_WC_RECV and up: a receive)
 * @param byteLen the bytes received (a send's: rxe's, undefined in verbs)
 * @param flags IBV_WC_WITH_IMM, IBV_WC_GRH, ...
 * @param imm the immediate data, in host order (0 without)
 * @param qpNum the QP's number */
public record Completion(long wrId, int status, int opcode, int byteLen, int flags, int imm, int qpNum,
                         int vendorErr, int srcQp, int pkeyIndex, int slid, int sl, int dlidPathBits) {
    /** Whether it succeeded (IBV_WC_SUCCESS). */
    public boolean ok() {
        return status == RdmaVerbs.IBV_WC_SUCCESS;
    }

    /** Itself if it succeeded, else RdmaVerbsException (EIO) naming its
     * wr_id and status: {@code cq.poll(1, t).get(0).orThrow()}. */
    public Completion orThrow() throws RdmaVerbsException {
        if (ok()) return this;
        throw new RdmaVerbsException("ibv_poll_cq", 5 /* EIO */, "work completion wr_id 0x" + Long.toHexString(wrId)
                                     + ": " + statusText() + " (status " + status + ", vendor error 0x"
                                     + Integer.toHexString(vendorErr) + ")");
    }

    /** Whether it is a receive's (its opcode IBV_WC_RECV or above). */
    public boolean isRecv() {
        return (opcode & RdmaVerbs.IBV_WC_RECV) != 0;
    }

    /** The status as text (ibv_wc_status_str). */
    public String statusText() {
        return RdmaVerbs.ibv_wc_status_str(status);
    }
}
