package org.rdmaverbs;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/** A completion channel (ibv_create_comp_channel): the events of the CQs
 * made on it, each read (ibv_get_cq_event) and acknowledged
 * (ibv_ack_cq_events) at once, so that no CQ's destroy waits for one. Every
 * wait can be bounded: its file descriptor is polled first, the time given
 * at most (negative: no limit). Any number of threads may wait at once;
 * closing the channel, or the CQ a thread waits for, ends that wait at
 * once: RdmaVerbsException EBADF, "closed". Closing it first
 * closes its CQs (and their QPs), then destroys it. One made on an
 * endpoint is closed with it, before its id. */
public final class CompletionChannel extends Resource {
    private final Pointer channel;
    private final int fd;
    private final Map<Pointer, CompletionQueue> cqs = new ConcurrentHashMap<>();
    /** The CQs whose events were read while waiting for another's. */
    private final ArrayDeque<CompletionQueue> pending = new ArrayDeque<>();
    /** The waits; its lock guards pending. */
    private final Waits waits = new Waits(this);

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
        waits.lock.lock();
        try {
            pending.removeIf(c -> c == cq);
        } finally {
            waits.lock.unlock();
        }
    }

    /** The next event, timeoutMs at most (ETIMEDOUT): the CQ it is for,
     * acknowledged. */
    public CompletionQueue await(int timeoutMs) throws RdmaVerbsException {
        check();
        return waits.await(null, pending::poll, this::ready, this::read, timeoutMs, "ibv_get_cq_event");
    }

    /** Waits for cq's next event; others read meanwhile are kept. */
    void awaitFor(CompletionQueue cq, int timeoutMs) throws RdmaVerbsException {
        check();
        waits.await(cq, () -> pending.removeFirstOccurrence(cq) ? cq : null, this::ready, this::read, timeoutMs,
                    "ibv_get_cq_event");
    }

    /** {@link #await(int)} as a future, which holds no thread while it
     * waits (the descriptor is watched by the one reader of every async
     * wait): ETIMEDOUT after timeoutMs (negative: no limit), EBADF
     * ("closed") at once when the channel closes; cancel() ends it, and an
     * event it had not taken stays for the next wait. */
    public CompletableFuture<CompletionQueue> awaitAsync(int timeoutMs) {
        check();
        return waits.awaitAsync(null, pending::poll, this::ready, this::read, fd, timeoutMs, "ibv_get_cq_event");
    }

    /** cq's next event, as a future. */
    CompletableFuture<CompletionQueue> awaitForAsync(CompletionQueue cq, int timeoutMs) {
        check();
        return waits.awaitAsync(cq, () -> pending.removeFirstOccurrence(cq) ? cq : null, this::ready, this::read, fd,
                                timeoutMs, "ibv_get_cq_event");
    }

    private boolean ready(int timeoutMs, String function, int wakeFd) throws RdmaVerbsException {
        return Calls.readable(fd, wakeFd, timeoutMs, function);
    }

    /** Reads an event (the descriptor is readable), kept for its CQ. */
    private void read() throws RdmaVerbsException {
        PointerByReference cq = new PointerByReference(), context = new PointerByReference();
        RdmaVerbs.ibv_get_cq_event(channel, cq, context);
        RdmaVerbs.ibv_ack_cq_events(cq.getValue(), 1);
        CompletionQueue q = cqs.get(cq.getValue());
        if (q != null) pending.add(q);
    }

    /** Wakes the threads waiting here: each checks whether what it waits
     * for is closing. */
    void wakeWaiters() {
        waits.wake();
    }

    /** Ends every wait on the channel (EBADF, "closed"). */
    @Override
    void wake() {
        waits.wake();
    }

    @Override
    void destroy() throws RdmaVerbsException {
        waits.close();   // no thread polls its descriptor any more
        RdmaVerbs.ibv_destroy_comp_channel(channel);
    }

    @Override
    void released() {
        if (!owned) waits.close();
    }
}
