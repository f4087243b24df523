package org.rdmaverbs;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/** An rdma_cm event channel (rdma_create_event_channel): the events of the
 * ids made on it (endpoints, listeners). Each event is read (a copy, a
 * {@link CmEvent}) and acknowledged at once, so that no id's destroy waits
 * for an event left unacknowledged. Every wait can be bounded: its file
 * descriptor is polled first, the time given at most (ETIMEDOUT; negative:
 * no limit). Any number of threads may wait on a channel at once (one
 * polls, the others wait for what it reads). Closing it closes the ids made
 * on it; closing it, or the endpoint or listener a thread waits for, ends
 * that wait at once: RdmaVerbsException EBADF, "closed".
 *
 * <p>An event read while waiting for another is kept for its id if that is
 * one of this channel's endpoints or listeners, or a connect request's new
 * id for one of its listeners; else it is dropped (a connect request's id
 * destroyed: the request refused). When an endpoint or listener closes, the
 * events kept for it are dropped, and the ids of the connect requests it
 * had not taken ({@link Listener#getRequest}) are destroyed: no event of a
 * closed id is ever given to another id at the same address. */
public final class EventChannel extends Resource {
    /** The C calls of a channel (the tests give a stand-in). */
    interface Source {
        /** Waits until an event can be read (true) or wakeFd is readable
         * (false), timeoutMs at most (negative: no limit), else throws
         * RdmaVerbsException(function, ETIMEDOUT). */
        boolean await(int timeoutMs, String function, int wakeFd) throws RdmaVerbsException;

        /** The next event (rdma_get_cm_event), copied, acknowledged. */
        CmEvent get() throws RdmaVerbsException;

        /** rdma_destroy_id, of a connect request's id nobody took. */
        void destroyId(Pointer id) throws RdmaVerbsException;

        /** The descriptor that is readable when an event can be read (the
         * async waits' reader watches it); -1: none. */
        default int fd() {
            return -1;
        }
    }

    private final Pointer channel;
    private final int fd;
    private final Source source;
    /** The waits; its lock guards held and ids, and is also held from an
     * event's read to its routing, so that an id forgotten (then destroyed,
     * its address free for another) never gets an event read before. Never
     * held while polling. */
    private final Waits waits = new Waits(this);
    /** Events read while waiting for another (of another id), in order. */
    private final ArrayDeque<CmEvent> held = new ArrayDeque<>();
    /** The ids whose events are kept: an endpoint's or a listener's (to
     * null), or a connect request's new id not yet taken (to its
     * listener's id). */
    private final Map<Pointer, Pointer> ids = new HashMap<>();

    /** rdma_create_event_channel. */
    public EventChannel() throws RdmaVerbsException {
        super(true);
        channel = RdmaVerbs.rdma_create_event_channel();
        fd = new RdmaVerbs.rdma_event_channel(channel).fd;
        source = new Source() {
            @Override
            public boolean await(int timeoutMs, String function, int wakeFd) throws RdmaVerbsException {
                return Calls.readable(fd, wakeFd, timeoutMs, function);
            }

            @Override
            public CmEvent get() throws RdmaVerbsException {
                PointerByReference ev = new PointerByReference();
                RdmaVerbs.rdma_get_cm_event(channel, ev);
                RdmaVerbs.rdma_cm_event e = new RdmaVerbs.rdma_cm_event(ev.getValue());
                CmEvent copy = new CmEvent(e.event, e.status, e.id, e.listen_id);
                RdmaVerbs.rdma_ack_cm_event(ev.getValue());
                return copy;
            }

            @Override
            public void destroyId(Pointer id) throws RdmaVerbsException {
                RdmaVerbs.rdma_destroy_id(id);
            }

            @Override
            public int fd() {
                return fd;
            }
        };
        opened();
    }

    /** A channel whose C calls are source's (the tests' stand-in: nothing
     * made, nothing destroyed but through source). */
    EventChannel(Source source) {
        super(false);
        channel = null;
        fd = -1;
        this.source = source;
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
     * limit): read and acknowledged. A connect request's new id is then the
     * caller's (no listener here takes it). */
    public CmEvent next(int timeoutMs) throws RdmaVerbsException {
        check();
        return waits.await(null, () -> {
            CmEvent e = held.poll();
            if (e != null && isRequest(e)) ids.remove(e.id());
            return e;
        }, source::await, () -> {
            CmEvent e = source.get();
            if (e != null) held.add(e);
        }, timeoutMs, "rdma_get_cm_event");
    }

    /** The next event that matches, waiting timeoutMs at most; the others
     * read meanwhile are kept for their ids (or dropped, as the class says). */
    CmEvent next(Predicate<CmEvent> match, Resource who, int timeoutMs, String function) throws RdmaVerbsException {
        check();
        return waits.await(who, () -> take(match), source::await, () -> {
            CmEvent e = source.get();
            if (e != null) route(e);
        }, timeoutMs, function);
    }

    /** {@link #next(int)} as a future, which holds no thread while it
     * waits (the channel's descriptor is watched by the one reader of every
     * async wait); it fails with RdmaVerbsException: ETIMEDOUT after
     * timeoutMs (negative: no limit), EBADF ("closed") at once when the
     * channel closes; cancel() ends it, and an event it had not taken stays
     * for the next wait. */
    public CompletableFuture<CmEvent> nextAsync(int timeoutMs) {
        check();
        return waits.awaitAsync(null, () -> {
            CmEvent e = held.poll();
            if (e != null && isRequest(e)) ids.remove(e.id());
            return e;
        }, source::await, () -> {
            CmEvent e = source.get();
            if (e != null) held.add(e);
        }, source.fd(), timeoutMs, "rdma_get_cm_event");
    }

    /** The next event that matches, as a future (as {@link #nextAsync(int)};
     * EBADF also when who closes). */
    CompletableFuture<CmEvent> nextAsync(Predicate<CmEvent> match, Resource who, int timeoutMs, String function) {
        check();
        return waits.awaitAsync(who, () -> take(match), source::await, () -> {
            CmEvent e = source.get();
            if (e != null) route(e);
        }, source.fd(), timeoutMs, function);
    }

    /** {@link #expect} as a future. */
    CompletableFuture<CmEvent> expectAsync(Pointer id, Resource who, int want, int timeoutMs, String function) {
        return Reactor.map(nextAsync(ev -> id.equals(ev.id()), who, timeoutMs, function), e -> {
            if (e.type() != want || e.status() != 0) {
                throw new RdmaVerbsException(function, e.errno(), e.name() + " status " + e.status() + ", not "
                                             + RdmaVerbs.rdma_event_str(want));
            }
            return e;
        });
    }

    /** The first kept event that matches, taken (under the lock), or null. */
    private CmEvent take(Predicate<CmEvent> match) {
        for (Iterator<CmEvent> it = held.iterator(); it.hasNext();) {
            CmEvent e = it.next();
            if (match.test(e)) {
                it.remove();
                // A connect request's id is taken: its listener will not destroy it.
                if (isRequest(e) && ids.containsKey(e.id())) ids.put(e.id(), null);
                return e;
            }
        }
        return null;
    }

    private static boolean isRequest(CmEvent e) {
        return e.type() == RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST;
    }

    /** Keeps e for its id, or drops it (under the lock). */
    private void route(CmEvent e) throws RdmaVerbsException {
        if (isRequest(e) && e.listenId() != null && ids.containsKey(e.listenId()) && ids.get(e.listenId()) == null) {
            ids.put(e.id(), e.listenId());   // a listener's: its new id held until taken
            held.add(e);
        } else if (isRequest(e)) {
            source.destroyId(e.id());        // for no listener of ours: refused
        } else if (ids.containsKey(e.id())) {
            held.add(e);
        }
    }

    /** Keeps the events of id (an endpoint's or a listener's, made on this
     * channel), from now on; a connect request's id: taken. */
    void add(Pointer id) {
        waits.lock.lock();
        try {
            ids.put(id, null);
        } finally {
            waits.lock.unlock();
        }
    }

    /** id is closing (then destroyed): its events are dropped; if it was a
     * listener's, so are its connect requests not taken, their ids
     * destroyed; if it was a connect request's not taken, it is destroyed. */
    void forget(Pointer id) throws RdmaVerbsException {
        List<Pointer> requests = new ArrayList<>();
        waits.lock.lock();
        try {
            if (!ids.containsKey(id)) return;
            if (ids.remove(id) != null) requests.add(id);
            for (Iterator<Map.Entry<Pointer, Pointer>> it = ids.entrySet().iterator(); it.hasNext();) {
                Map.Entry<Pointer, Pointer> p = it.next();
                if (id.equals(p.getValue())) {
                    requests.add(p.getKey());
                    it.remove();
                }
            }
            held.removeIf(e -> id.equals(e.id()) || requests.contains(e.id()));
            destroy(requests);
        } finally {
            waits.lock.unlock();
        }
    }

    /** A connect request taken and not wanted (its event's status not 0):
     * its events dropped, its id destroyed (the request refused). */
    void refuse(Pointer id) throws RdmaVerbsException {
        waits.lock.lock();
        try {
            forget(id);
            source.destroyId(id);
        } finally {
            waits.lock.unlock();
        }
    }

    /** Destroys the ids of requests, each; the first failure is thrown after
     * (the later ones added to it). */
    private void destroy(List<Pointer> requests) throws RdmaVerbsException {
        Exception first = null;
        for (Pointer r : requests) {
            try {
                source.destroyId(r);
            } catch (RdmaVerbsException | RuntimeException e) {
                if (first == null) first = e; else first.addSuppressed(e);
            }
        }
        if (first instanceof RdmaVerbsException e) throw e;
        if (first != null) throw (RuntimeException) first;
    }

    /** How many events are kept (for the tests). */
    int heldCount() {
        waits.lock.lock();
        try {
            return held.size();
        } finally {
            waits.lock.unlock();
        }
    }

    /** The event for id of type want, else RdmaVerbsException: another
     * event for it (REJECTED, UNREACHABLE, ...: errno its status, or
     * ECONNREFUSED, EPROTO), or none within timeoutMs (ETIMEDOUT). */
    CmEvent expect(Pointer id, Resource who, int want, int timeoutMs, String function) throws RdmaVerbsException {
        CmEvent e = next(ev -> id.equals(ev.id()), who, timeoutMs, function);
        if (e.type() != want || e.status() != 0) {
            throw new RdmaVerbsException(function, e.errno(), e.name() + " status " + e.status() + ", not "
                                         + RdmaVerbs.rdma_event_str(want));
        }
        return e;
    }

    /** Ends every wait on the channel (EBADF, "closed"). */
    @Override
    void wake() {
        waits.wake();
    }

    @Override
    void destroy() throws RdmaVerbsException {
        waits.close();   // no thread polls its descriptor any more
        RdmaVerbs.rdma_destroy_event_channel(channel);
    }

    @Override
    void released() {
        if (!owned) waits.close();   // (a stand-in's: destroy was not called)
    }
}
