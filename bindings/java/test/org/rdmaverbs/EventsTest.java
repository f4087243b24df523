package org.rdmaverbs;

import com.sun.jna.Pointer;
import java.util.ArrayList;
import java.util.List;

/** Events kept for their ids and dropped with them, on an event channel
 * whose C calls are scripted (Script, which CloseTest uses too): an
 * endpoint's, a listener's connect requests, those of an id not the
 * channel's. Run by ObjectsTest. */
final class EventsTest {
    private EventsTest() {}

    static void check(boolean ok, String what) {
        BindingTest.check(ok, "objects: " + what);
    }

    /** An event channel's C calls, scripted: the events it reads, the ids
     * it destroys. */
    static final class Script implements EventChannel.Source {
        final java.util.ArrayDeque<CmEvent> events = new java.util.ArrayDeque<>();
        final List<Pointer> destroyed = new ArrayList<>();

        /** A pipe's read end, or -1: with no event scripted, a wait polls it
         * (and the wake descriptor) rather than time out at once. */
        int block = -1;

        @Override
        public boolean await(int timeoutMs, String function, int wakeFd) throws RdmaVerbsException {
            if (!events.isEmpty()) return true;
            if (block < 0) throw new RdmaVerbsException(function, RdmaVerbs.ETIMEDOUT, "scripted");
            return Calls.readable(block, wakeFd, timeoutMs, function);
        }

        @Override
        public CmEvent get() {
            return events.poll();
        }

        @Override
        public void destroyId(Pointer id) {
            destroyed.add(id);
        }

        void add(int type, long id, long listenId) {
            events.add(new CmEvent(type, 0, new Pointer(id), listenId == 0 ? null : new Pointer(listenId)));
        }
    }

    /** Reads every event scripted (waiting for one nothing matches). */
    static void readAll(EventChannel ch) {
        check(BindingTest.errnoOf(() -> ch.next(ev -> false, null, 0, "rdma_get_cm_event")) == RdmaVerbs.ETIMEDOUT, "all read");
    }

    /** Events kept for their ids, dropped with them: an endpoint's events
     * read while another waited are dropped when it closes (an endpoint
     * made later at the same address gets none of them); a connect request
     * of a listener is kept until taken, its id destroyed if the listener
     * or the channel closes first; an event of an id not the channel's is
     * dropped, a connect request's refused (its id destroyed). */
    static void run() throws RdmaVerbsException {
        int before = Resource.openCount();
        Script c = new Script();
        EventChannel ch = new EventChannel(c);
        long l = 0x1000, a = 0x2000, n1 = 0x3000, n2 = 0x3100, n3 = 0x3200, n4 = 0x3300;
        Listener listener = new Listener(ch, new Pointer(l), false);
        Endpoint ep = new Endpoint(ch, false, new Pointer(a), false);
        Endpoint waiter = new Endpoint(ch, false, new Pointer(0x2800), false);
        c.add(RdmaVerbs.RDMA_CM_EVENT_DISCONNECTED, a, 0);
        c.add(RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST, n1, l);
        c.add(RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST, n2, l);
        c.add(RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED, 0x4000, 0);              // an id not the channel's
        c.add(RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST, n3, 0x5000);         // a listener not the channel's
        c.add(RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED, n1, 0);                  // the new id's, before it is taken
        c.add(RdmaVerbs.RDMA_CM_EVENT_ROUTE_RESOLVED, 0x2800, 0);
        CmEvent e = ch.expect(new Pointer(0x2800), null, RdmaVerbs.RDMA_CM_EVENT_ROUTE_RESOLVED, 0, "rdma_resolve_route");
        check(e.id().equals(new Pointer(0x2800)) && c.destroyed.equals(List.of(new Pointer(n3))) && ch.heldCount() == 4,
              "waiting for an endpoint's event: 4 others kept (another's DISCONNECTED, 2 connect requests, the new id's"
              + " ESTABLISHED); an unknown id's dropped; a connect request for no listener of the channel refused, its id"
              + " destroyed (" + c.destroyed + ", " + ch.heldCount() + " kept)");
        Endpoint taken = listener.getRequest(0);
        check(taken.handle().equals(new Pointer(n1)), "getRequest: the first connect request's id");
        check(BindingTest.errnoOf(() -> ch.expect(new Pointer(n1), null, RdmaVerbs.RDMA_CM_EVENT_ESTABLISHED, 0, "rdma_accept")) == 0,
              "the new id's event read before it was taken is its endpoint's");
        ep.close();
        check(ch.heldCount() == 1, "an endpoint closed: its DISCONNECTED, read and not taken, dropped ("
              + ch.heldCount() + " kept)");
        Endpoint again = new Endpoint(ch, false, new Pointer(a), false);   // malloc gave the same address
        int errno = BindingTest.errnoOf(() -> again.awaitDisconnect(0));
        check(errno == RdmaVerbs.ETIMEDOUT, "an endpoint at the closed one's address: not given its DISCONNECTED (errno "
              + errno + ")");
        again.close();
        waiter.close();
        Listener third = new Listener(ch, new Pointer(0x8000), false);
        c.events.add(new CmEvent(RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST, -RdmaVerbs.ETIMEDOUT, new Pointer(0x3400),
                                 new Pointer(0x8000)));
        errno = BindingTest.errnoOf(() -> third.getRequest(0));
        third.close();
        check(errno == RdmaVerbs.ETIMEDOUT && c.destroyed.equals(List.of(new Pointer(n3), new Pointer(0x3400))),
              "a connect request in error: RdmaVerbsException (errno " + errno + ", its status), its id destroyed");
        c.add(RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST, n4, l);
        c.add(RdmaVerbs.RDMA_CM_EVENT_DISCONNECTED, n2, 0);
        readAll(ch);
        check(ch.heldCount() == 3, "the events of the requests not taken kept (" + ch.heldCount() + ")");
        listener.close();
        check(new java.util.HashSet<>(c.destroyed).equals(java.util.Set.of(new Pointer(n3), new Pointer(0x3400),
                                                                           new Pointer(n2), new Pointer(n4)))
              && c.destroyed.size() == 4 && ch.heldCount() == 0,
              "a listener closed: the ids of its 2 connect requests not taken destroyed, their events dropped ("
              + c.destroyed + ")");
        // A connect request not taken when the channel closes (its listener
        // with it): its id destroyed.
        Listener second = new Listener(ch, new Pointer(0x7000), false);
        c.add(RdmaVerbs.RDMA_CM_EVENT_CONNECT_REQUEST, 0x7100, 0x7000);
        readAll(ch);
        ch.close();
        check(c.destroyed.size() == 5 && c.destroyed.get(4).equals(new Pointer(0x7100)) && second.isClosed()
              && taken.isClosed() && Resource.openCount() == before,
              "the channel closed: its listener and endpoints with it, the connect request not taken destroyed");
    }
}
