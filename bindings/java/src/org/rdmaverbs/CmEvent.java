package org.rdmaverbs;

import com.sun.jna.Pointer;

/** An rdma_cm event as the object API read it: copied out of librdmacm's
 * struct, which was then acknowledged (rdma_ack_cm_event).
 *
 * @param type an RDMA_CM_EVENT_* value
 * @param status 0, or what went wrong (a negative errno for most events)
 * @param id the id the event is for (a connect request's: the new id)
 * @param listenId a connect request's listening id, else null */
public record CmEvent(int type, int status, Pointer id, Pointer listenId) {
    /** The event's name (rdma_event_str). */
    public String name() {
        return RdmaVerbs.rdma_event_str(type);
    }

    /** The errno an event other than the one wanted stands for: its status
     * when negative (ETIMEDOUT, ENETUNREACH, ...), ECONNREFUSED for a
     * rejection, else EPROTO. */
    int errno() {
        if (status < 0) return -status;
        return type == RdmaVerbs.RDMA_CM_EVENT_REJECTED ? 111 /* ECONNREFUSED */ : 71 /* EPROTO */;
    }
}
