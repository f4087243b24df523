package org.rdmaverbs;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.Predicate;

/** An rdma_cm event channel (rdma_create_event_channel): the events of the
 * ids made on it (endpoints, listeners). Each event is read (a copy, a
 * {@link CmEvent}) and acknowledged at once, so that no id's destroy waits
 * for an event left unacknowledged. Every wait can be bounded: its file
 * descriptor is polled first, the time given at most (ETIMEDOUT; negative:
 * no limit). One thread
 * waits on a channel at a time. Closing it closes the ids made on it. */
public final class EventChannel extends Resource {
    private final Pointer channel;
    private final int fd;
    /** Events read while waiting for another (of another id). */
    private final ArrayDeque<CmEvent> held = new ArrayDeque<>();

    /** rdma_create_event_channel. */
    public EventChannel() {
        super(true);
        channel = RdmaVerbs.rdma_create_event_channel();
        fd = new RdmaVerbs.rdma_event_channel(channel).fd;
        opened();
    }

    @Override
    public Pointer handle() {
        check();
        return channel;
    }

    /** The channel's file descriptor (to watch it with poll, or a selector). */
    public int fd() {
        check();
        return fd;
    }

    /** The next event (of any id), waiting timeoutMs at most (negative: no
     * limit): read and acknowledged. */
    public synchronized CmEvent next(int timeoutMs) {
        check();
        if (!held.isEmpty()) return held.poll();
        return read(timeoutMs, "rdma_get_cm_event");
    }

    /** The next event that matches, waiting timeoutMs at most; the others
     * read meanwhile are kept for the next calls, in order. */
    synchronized CmEvent next(Predicate<CmEvent> match, int timeoutMs, String function) {
        check();
        for (Iterator<CmEvent> it = held.iterator(); it.hasNext();) {
            CmEvent e = it.next();
            if (match.test(e)) {
                it.remove();
                return e;
            }
        }
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (true) {
            int left = timeoutMs < 0 ? -1 : (int) Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
            CmEvent e = read(left, function);
            if (match.test(e)) return e;
            held.add(e);
        }
    }

    private CmEvent read(int timeoutMs, String function) {
        Calls.readable(fd, timeoutMs, function);
        PointerByReference ev = new PointerByReference();
        RdmaVerbs.rdma_get_cm_event(channel, ev);
        RdmaVerbs.rdma_cm_event e = new RdmaVerbs.rdma_cm_event(ev.getValue());
        CmEvent copy = new CmEvent(e.event, e.status, e.id, e.listen_id);
        RdmaVerbs.rdma_ack_cm_event(ev.getValue());
        return copy;
    }

    /** The event for id of type want, else RdmaVerbsException: another
     * event for it (REJECTED, UNREACHABLE, ...: errno its status, or
     * ECONNREFUSED, EPROTO), or none within timeoutMs (ETIMEDOUT). */
    CmEvent expect(Pointer id, int want, int timeoutMs, String function) {
        CmEvent e = next(ev -> id.equals(ev.id()), timeoutMs, function);
        if (e.type() != want || e.status() != 0) {
            throw new RdmaVerbsException(function, e.errno(), e.name() + " status " + e.status() + ", not "
                                         + RdmaVerbs.rdma_event_str(want));
        }
        return e;
    }

    @Override
    void destroy() {
        RdmaVerbs.rdma_destroy_event_channel(channel);
    }
}
