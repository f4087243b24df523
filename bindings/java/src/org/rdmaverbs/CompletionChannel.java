package org.rdmaverbs;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A completion channel (ibv_create_comp_channel): the events of the CQs
 * made on it, each read (ibv_get_cq_event) and acknowledged
 * (ibv_ack_cq_events) at once, so that no CQ's destroy waits for one. Every
 * wait can be bounded: its file descriptor is polled first, the time given
 * at most (negative: no limit). Closing it first
 * closes its CQs (and their QPs), then destroys it. One made on an
 * endpoint is closed with it, before its id. */
public final class CompletionChannel extends Resource {
    private final Pointer channel;
    private final int fd;
    private final Map<Pointer, CompletionQueue> cqs = new ConcurrentHashMap<>();
    /** The CQs whose events were read while waiting for another's. */
    private final ArrayDeque<CompletionQueue> pending = new ArrayDeque<>();

    /** A channel on the endpoint's device context, closed with the
     * endpoint (before its id). */
    public CompletionChannel(Endpoint ep) throws RdmaVerbsException {
        this(ep, RdmaVerbs.ibv_create_comp_channel(ep.context()), true);
    }

    /** A channel on a device context (an ibv_context *), closed on its own. */
    public CompletionChannel(Pointer context) throws RdmaVerbsException {
        this(null, RdmaVerbs.ibv_create_comp_channel(context), true);
    }

    private CompletionChannel(Endpoint ep, Pointer channel, boolean owned) {
        this(ep, channel, new RdmaVerbs.ibv_comp_channel(channel).fd, owned);
    }

    /** channel (its descriptor fd), made on ep's context (a dependent of
     * ep), or on none; not owned: the tests' fake. */
    CompletionChannel(Endpoint ep, Pointer channel, int fd, boolean owned) {
        super(owned);
        this.channel = channel;
        this.fd = fd;
        opened(ep);
    }

    @Override
    public Pointer handle() {
        check();
        return channel;
    }

    /** Its file descriptor (to watch it with poll, or a selector). */
    public int fd() {
        check();
        return fd;
    }

    void attach(CompletionQueue cq) {
        cqs.put(cq.handle(), cq);
    }

    void detach(CompletionQueue cq) {
        cqs.values().remove(cq);
        synchronized (this) {
            pending.removeIf(c -> c == cq);
        }
    }

    /** The next event, timeoutMs at most (ETIMEDOUT): the CQ it is for,
     * acknowledged. */
    public synchronized CompletionQueue await(int timeoutMs) throws RdmaVerbsException {
        check();
        return pending.isEmpty() ? read(timeoutMs) : pending.poll();
    }

    /** Waits for cq's next event; others read meanwhile are kept. */
    synchronized void awaitFor(CompletionQueue cq, int timeoutMs) throws RdmaVerbsException {
        check();
        if (pending.remove(cq)) return;
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        while (true) {
            int left = timeoutMs < 0 ? -1 : (int) Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
            CompletionQueue got = read(left);
            if (got == cq) return;
            if (got != null) pending.add(got);
        }
    }

    private CompletionQueue read(int timeoutMs) throws RdmaVerbsException {
        Calls.readable(fd, timeoutMs, "ibv_get_cq_event");
        PointerByReference cq = new PointerByReference(), context = new PointerByReference();
        RdmaVerbs.ibv_get_cq_event(channel, cq, context);
        RdmaVerbs.ibv_ack_cq_events(cq.getValue(), 1);
        return cqs.get(cq.getValue());
    }

    @Override
    void destroy() throws RdmaVerbsException {
        RdmaVerbs.ibv_destroy_comp_channel(channel);
    }
}
