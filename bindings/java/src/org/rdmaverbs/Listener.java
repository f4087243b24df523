package org.rdmaverbs;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.concurrent.CompletableFuture;

/** A listening rdma_cm id (RDMA_PS_TCP): {@link #getRequest} gives each
 * connect request as an {@link Endpoint} (on the same event channel), to be
 * given its QP, its receives posted, and accepted. Closing it ends a wait
 * in getRequest at once (EBADF, "closed"), destroys the ids of the connect
 * requests read and not taken (refusing them), then its own
 * (rdma_destroy_id), and the event channel it made for itself, if any; the
 * endpoints it gave are closed on their own (or with that channel). */
public final class Listener extends Resource {
    private final EventChannel events;
    private final boolean ownEvents;
    private final Pointer id;

    /** A listening id on events; not owned: the tests' fake. */
    Listener(EventChannel events, Pointer id, boolean owned) {
        this(events, false, id, owned);
    }

    private Listener(EventChannel events, boolean ownEvents, Pointer id, boolean owned) {
        super(owned);
        this.events = events;
        this.ownEvents = ownEvents;
        this.id = id;
        opened(ownEvents ? null : events);
        events.add(id);
    }

    /** As {@link #listen(EventChannel, String, int, int)}, on an event
     * channel of the listener's own (closed with it, after the endpoints it
     * gave, which are on it). */
    public static Listener listen(String addr, int port, int backlog) throws RdmaVerbsException {
        EventChannel own = new EventChannel();
        try {
            return listen(own, true, addr, port, backlog);
        } catch (RdmaVerbsException | RuntimeException e) {
            Endpoint.closeAfter(own, e);
            throw e;
        }
    }

    /** An id on events bound to addr:port (rdma_getaddrinfo with
     * RAI_PASSIVE, rdma_bind_addr) and listening (rdma_listen, backlog).
     * On a failure, the id is closed. */
    public static Listener listen(EventChannel events, String addr, int port, int backlog) throws RdmaVerbsException {
        return listen(events, false, addr, port, backlog);
    }

    private static Listener listen(EventChannel events, boolean own, String addr, int port, int backlog)
        throws RdmaVerbsException {
        PointerByReference ref = new PointerByReference();
        RdmaVerbs.rdma_create_id(events.handle(), ref, null, RdmaVerbs.RDMA_PS_TCP);
        Listener l = new Listener(events, own, ref.getValue(), true);
        try {
            RdmaVerbs.rdma_addrinfo hints = new RdmaVerbs.rdma_addrinfo();
            hints.ai_flags = RdmaVerbs.RAI_PASSIVE;
            hints.ai_port_space = RdmaVerbs.RDMA_PS_TCP;
            PointerByReference res = new PointerByReference();
            RdmaVerbs.rdma_getaddrinfo(addr, Integer.toString(port), hints, res);
            try {
                RdmaVerbs.rdma_bind_addr(l.id, new RdmaVerbs.rdma_addrinfo(res.getValue()).ai_src_addr);
            } finally {
                RdmaVerbs.rdma_freeaddrinfo(res.getValue());
            }
            RdmaVerbs.rdma_listen(l.id, backlog);
            return l;
        } catch (RdmaVerbsException | RuntimeException e) {
            Endpoint.closeAfter(l, e);
            throw e;
        }
    }

    @Override
    public Pointer handle() {
        check();
        return id;
    }

    /** The next connect request (its CONNECT_REQUEST event, timeoutMs at
     * most): an endpoint of the new id, not yet accepted. */
    public Endpoint getRequest(int timeoutMs) throws RdmaVerbsException {
        check();
        return request(events.next(ev -> id.equals(ev.listenId()) || id.equals(ev.id()), this, timeoutMs,
                                   "rdma_get_request"));
    }

    /** {@link #getRequest} as a future, which holds no thread while it
     * waits (the event channel's descriptor is watched by the one reader of
     * every async wait): the endpoint of the next connect request, or
     * RdmaVerbsException: ETIMEDOUT after timeoutMs (negative: no limit),
     * EBADF ("closed") at once when the listener or its channel closes. */
    public CompletableFuture<Endpoint> getRequestAsync(int timeoutMs) {
        return Endpoint.step(() -> {
            check();
            return Reactor.map(events.nextAsync(ev -> id.equals(ev.listenId()) || id.equals(ev.id()), this, timeoutMs,
                                                "rdma_get_request"), this::request);
        });
    }

    private Endpoint request(CmEvent e) throws RdmaVerbsException {
        if (e.type() != RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST || e.status() != 0) {
            if (e.type() == RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST) events.refuse(e.id());   // nobody's: destroyed
            throw new RdmaVerbsException("rdma_get_request", e.errno(), e.name() + " status " + e.status()
                                         + ", not RDMA_CM_EVENT_CONNECT_REQUEST");
        }
        return new Endpoint(events, false, e.id(), owned);   // (a fake listener's: a fake)
    }

    /** Ends a wait for a connect request (EBADF, "closed"). */
    @Override
    void wake() {
        events.wake();
    }

    @Override
    void closing() throws RdmaVerbsException {
        events.forget(id);   // the connect requests not taken: their ids destroyed
    }

    @Override
    void destroy() throws RdmaVerbsException {
        RdmaVerbs.rdma_destroy_id(id);
        if (ownEvents) events.close();
    }
}
