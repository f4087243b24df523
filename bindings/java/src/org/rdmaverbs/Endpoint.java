package org.rdmaverbs;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.util.concurrent.CompletableFuture;

/** An rdma_cm id and, once made, its QP ({@link #createQp}): one end of an
 * RC connection. A client's comes from {@link #resolve} (address and route
 * resolved), a server's from {@link Listener#getRequest}; the objects the
 * QP uses are made on its {@link #context()}; then {@link #connect} or
 * {@link #accept}. Every wait for an rdma_cm event takes its time limit
 * (ETIMEDOUT; negative: none);
 * an event other than the one awaited (REJECTED, UNREACHABLE, ...) throws
 * RdmaVerbsException with the errno it stands for.
 *
 * <p>Closing it first closes what was made on it, the last made first: its
 * QP (rdma_destroy_qp), and the PDs, CQs and completion channels made with
 * it (on its context: they would outlive the id's hold on the device
 * otherwise; make them on {@link #context()} to keep them past it); then it
 * destroys its id (rdma_destroy_id), and the event channel it made for
 * itself, if any. */
public final class Endpoint extends Resource {
    private final EventChannel events;
    private final boolean ownEvents;
    private final Pointer id;
    private volatile QueuePair qp;

    Endpoint(EventChannel events, boolean ownEvents, Pointer id, boolean owned) {
        super(owned);
        this.events = events;
        this.ownEvents = ownEvents;
        this.id = id;
        opened(ownEvents ? null : events);
        if (events != null) events.add(id);
    }

    /** A client's endpoint: an id on events (rdma_create_id, RDMA_PS_TCP),
     * the address of addr:port resolved (rdma_getaddrinfo,
     * rdma_resolve_addr), then its route (rdma_resolve_route), each event
     * awaited timeoutMs at most. On a failure, what was made is closed. */
    public static Endpoint resolve(EventChannel events, String addr, int port, int timeoutMs) throws RdmaVerbsException {
        return resolve(events, false, addr, port, timeoutMs);
    }

    /** As {@link #resolve(EventChannel, String, int, int)}, on an event
     * channel of the endpoint's own (closed with it). */
    public static Endpoint resolve(String addr, int port, int timeoutMs) throws RdmaVerbsException {
        EventChannel own = new EventChannel();
        try {
            return resolve(own, true, addr, port, timeoutMs);
        } catch (RdmaVerbsException | RuntimeException e) {
            closeAfter(own, e);
            throw e;
        }
    }

    private static Endpoint resolve(EventChannel events, boolean own, String addr, int port, int timeoutMs)
        throws RdmaVerbsException {
        PointerByReference ref = new PointerByReference();
        RdmaVerbs.rdma_create_id(events.handle(), ref, null, RdmaVerbs.RDMA_PS_TCP);
        Endpoint ep = new Endpoint(events, own, ref.getValue(), true);
        try {
            RdmaVerbs.rdma_addrinfo hints = new RdmaVerbs.rdma_addrinfo();
            hints.ai_port_space = RdmaVerbs.RDMA_PS_TCP;
            PointerByReference res = new PointerByReference();
            RdmaVerbs.rdma_getaddrinfo(addr, Integer.toString(port), hints, res);
            try {
                RdmaVerbs.rdma_resolve_addr(ep.id, null, new RdmaVerbs.rdma_addrinfo(res.getValue()).ai_dst_addr,
                                            timeoutMs);
            } finally {
                RdmaVerbs.rdma_freeaddrinfo(res.getValue());
            }
            events.expect(ep.id, ep, RdmaVerbs.RDMA_CM_EVENT_ADDR_RESOLVED, timeoutMs, "rdma_resolve_addr");
            RdmaVerbs.rdma_resolve_route(ep.id, timeoutMs);
            events.expect(ep.id, ep, RdmaVerbs.RDMA_CM_EVENT_ROUTE_RESOLVED, timeoutMs, "rdma_resolve_route");
            return ep;
        } catch (RdmaVerbsException | RuntimeException e) {
            closeAfter(ep, e);
            throw e;
        }
    }

    /** {@link #resolve(EventChannel, String, int, int)} as a future, which
     * holds no thread while it waits for the two events (the channel's
     * descriptor is watched by the one reader of every async wait): the
     * endpoint, or RdmaVerbsException (ETIMEDOUT after timeoutMs, EBADF
     * "closed" when the channel closes; what was made is then closed). */
    public static CompletableFuture<Endpoint> resolveAsync(EventChannel events, String addr, int port,
                                                           int timeoutMs) {
        Endpoint ep;
        try {
            PointerByReference ref = new PointerByReference();
            RdmaVerbs.rdma_create_id(events.handle(), ref, null, RdmaVerbs.RDMA_PS_TCP);
            ep = new Endpoint(events, false, ref.getValue(), true);
        } catch (RdmaVerbsException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Endpoint> f = step(() -> {
            RdmaVerbs.rdma_addrinfo hints = new RdmaVerbs.rdma_addrinfo();
            hints.ai_port_space = RdmaVerbs.RDMA_PS_TCP;
            PointerByReference res = new PointerByReference();
            RdmaVerbs.rdma_getaddrinfo(addr, Integer.toString(port), hints, res);
            try {
                RdmaVerbs.rdma_resolve_addr(ep.id, null, new RdmaVerbs.rdma_addrinfo(res.getValue()).ai_dst_addr,
                                            timeoutMs);
            } finally {
                RdmaVerbs.rdma_freeaddrinfo(res.getValue());
            }
            return events.expectAsync(ep.id, ep, RdmaVerbs.RDMA_CM_EVENT_ADDR_RESOLVED, timeoutMs, "rdma_resolve_addr");
        }).thenCompose(e -> step(() -> {
            RdmaVerbs.rdma_resolve_route(ep.id, timeoutMs);
            return events.expectAsync(ep.id, ep, RdmaVerbs.RDMA_CM_EVENT_ROUTE_RESOLVED, timeoutMs,
                                      "rdma_resolve_route");
        })).thenApply(e -> ep);
        f.whenComplete((v, e) -> {
            if (e != null) closeAfter(ep, e instanceof Exception x ? x : new RuntimeException(e));
        });
        return f;
    }

    /** What an async step does before its future: a C call may throw. */
    interface Step<R> {
        CompletableFuture<R> run() throws RdmaVerbsException;
    }

    /** s's future, or one failed with what s threw. */
    static <R> CompletableFuture<R> step(Step<R> s) {
        try {
            return s.run();
        } catch (RdmaVerbsException | RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Closes r after a failure e, whose suppressed failures get close's. */
    static void closeAfter(Resource r, Exception e) {
        try {
            r.close();
        } catch (RdmaVerbsException | RuntimeException c) {
            e.addSuppressed(c);
        }
    }

    @Override
    public Pointer handle() {
        check();
        return id;
    }

    /** The device context of the id (id->verbs), on which its PD, CQs and
     * channels are made: known once its address is resolved (a client) or
     * from the connect request (a server). */
    public Pointer context() {
        check();
        return new RdmaVerbs.rdma_cm_id(id).verbs;
    }

    /** The event channel the id's events come on. */
    public EventChannel events() {
        return events;
    }

    /** Makes the id's QP (rdma_create_qp) as init says; the QP is then
     * closed before the PD, CQs and SRQ it uses, and before the id. */
    public QueuePair createQp(QpInit init) throws RdmaVerbsException {
        check();
        if (qp != null) throw new IllegalStateException("Endpoint already has a QP");
        qp = new QueuePair(this, id, init);
        return qp;
    }

    /** The QP (createQp's), or IllegalStateException if none or closed. */
    public QueuePair qp() {
        check();
        QueuePair q = qp;
        if (q == null) throw new IllegalStateException("Endpoint has no QP (createQp)");
        q.check();
        return q;
    }

    void forget(QueuePair q) {
        if (qp == q) qp = null;
    }

    /** The connection parameters connect and accept use unless given
     * others: one RDMA read or atomic in flight each way (which atomics
     * and reads need), 7 retries, 7 RNR retries. */
    public static RdmaVerbs.rdma_conn_param defaultParam() {
        RdmaVerbs.rdma_conn_param p = new RdmaVerbs.rdma_conn_param();
        p.responder_resources = 1;
        p.initiator_depth = 1;
        p.retry_count = 7;
        p.rnr_retry_count = 7;
        return p;
    }

    /** rdma_connect, then its ESTABLISHED event (timeoutMs at most). */
    public void connect(int timeoutMs) throws RdmaVerbsException {
        connect(defaultParam(), timeoutMs);
    }

    /** rdma_connect with param, then its ESTABLISHED event. */
    public void connect(RdmaVerbs.rdma_conn_param param, int timeoutMs) throws RdmaVerbsException {
        check();
        RdmaVerbs.rdma_connect(id, param);
        events.expect(id, this, RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, "rdma_connect");
    }

    /** rdma_accept (a server's endpoint), then its ESTABLISHED event. */
    public void accept(int timeoutMs) throws RdmaVerbsException {
        accept(defaultParam(), timeoutMs);
    }

    /** rdma_accept with param, then its ESTABLISHED event. */
    public void accept(RdmaVerbs.rdma_conn_param param, int timeoutMs) throws RdmaVerbsException {
        check();
        RdmaVerbs.rdma_accept(id, param);
        events.expect(id, this, RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, "rdma_accept");
    }

    /** rdma_connect with {@link #defaultParam()}, then its ESTABLISHED
     * event as a future, which holds no thread while it waits (the event
     * channel's descriptor is watched by the one reader of every async
     * wait): RdmaVerbsException on another event (ECONNREFUSED, ...),
     * ETIMEDOUT after timeoutMs (negative: no limit), EBADF ("closed") at
     * once when the endpoint or its channel closes. */
    public CompletableFuture<Void> connectAsync(int timeoutMs) {
        return step(() -> {
            check();
            RdmaVerbs.rdma_connect(id, defaultParam());
            return established("rdma_connect", timeoutMs);
        });
    }

    /** rdma_accept with {@link #defaultParam()}, then its ESTABLISHED
     * event as a future (as {@link #connectAsync}). */
    public CompletableFuture<Void> acceptAsync(int timeoutMs) {
        return step(() -> {
            check();
            RdmaVerbs.rdma_accept(id, defaultParam());
            return established("rdma_accept", timeoutMs);
        });
    }

    private CompletableFuture<Void> established(String function, int timeoutMs) {
        return Reactor.map(events.expectAsync(id, this, RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, function),
                           e -> null);
    }

    /** rdma_disconnect, then its DISCONNECTED event as a future (as
     * {@link #connectAsync}). */
    public CompletableFuture<Void> disconnectAsync(int timeoutMs) {
        return step(() -> {
            check();
            RdmaVerbs.rdma_disconnect(id);
            return awaitDisconnectAsync(timeoutMs);
        });
    }

    /** The DISCONNECTED event of a connection the peer ends, as a future
     * (as {@link #connectAsync}). */
    public CompletableFuture<Void> awaitDisconnectAsync(int timeoutMs) {
        return step(() -> {
            check();
            return Reactor.map(events.expectAsync(id, this, RdmaVerbs.RDMA_CM_EVENT_DISCONNECTED, timeoutMs,
                                                  "rdma_disconnect"), e -> null);
        });
    }

    /** rdma_disconnect, then its DISCONNECTED event. */
    public void disconnect(int timeoutMs) throws RdmaVerbsException {
        check();
        RdmaVerbs.rdma_disconnect(id);
        awaitDisconnect(timeoutMs);
    }

    /** The DISCONNECTED event of a connection the peer ends. */
    public void awaitDisconnect(int timeoutMs) throws RdmaVerbsException {
        check();
        events.expect(id, this, RdmaVerbs.RDMA_CM_EVENT_DISCONNECTED, timeoutMs, "rdma_disconnect");
    }

    /** Posts work requests to the QP's send queue (QueuePair.postSend). */
    public void postSend(SendWork... wrs) throws RdmaVerbsException {
        qp().postSend(wrs);
    }

    /** Posts receives to the QP's own receive queue (QueuePair.postRecv). */
    public void postRecv(RecvWork... wrs) throws RdmaVerbsException {
        qp().postRecv(wrs);
    }

    /** Ends a wait for this endpoint's event (EBADF, "closed"). */
    @Override
    void wake() {
        if (events != null) events.wake();
    }

    @Override
    void closing() throws RdmaVerbsException {
        if (events != null) events.forget(id);   // before the id is destroyed: its address is then free for another
    }

    @Override
    void destroy() throws RdmaVerbsException {
        RdmaVerbs.rdma_destroy_id(id);
        if (ownEvents) events.close();
    }
}
