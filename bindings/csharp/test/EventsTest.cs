// Events kept for their ids and dropped with them, on an event channel
// whose C calls are scripted (Script, which CloseTest and AsyncTest use
// too): an endpoint's, a listener's connect requests, those of an id not
// the channel's. Run by ObjectsTest.
using System;
using System.Collections.Generic;
using System.Linq;
using RdmaVerbs;

static class EventsTest
{

    static void Check(bool ok, string what)
    {
        Test.Check(ok, "objects: " + what);
    }

    static int ErrnoOf(Action a)
    {
        return Test.ErrnoOf(a);
    }

    /// <summary>An event channel's C calls, scripted: the events it reads,
    /// the ids it destroys.</summary>
    internal sealed class Script : EventChannel.ISource
    {
        internal readonly Queue<CmEvent> Events = new Queue<CmEvent>();
        internal readonly List<IntPtr> Destroyed = new List<IntPtr>();

        /// <summary>A pipe's read end, or -1: with no event scripted, a wait
        /// polls it (and the wake descriptor) rather than time out at
        /// once.</summary>
        internal int Block = -1;

        public bool Await(int timeoutMs, string function, int wakeFd)
        {
            if (Events.Count > 0)
                return true;
            if (Block < 0)
                throw new RdmaVerbsException(function, Rdma.ETIMEDOUT, "scripted");
            return Calls.Readable(Block, wakeFd, timeoutMs, function);
        }

        public CmEvent Get()
        {
            return Events.Dequeue();
        }

        public void DestroyId(IntPtr id)
        {
            Destroyed.Add(id);
        }

        public int Fd {
            get { return -1; }
        }

        internal void Add(int type, long id, long listenId)
        {
            Events.Enqueue(new CmEvent(type, 0, new IntPtr(id), new IntPtr(listenId)));
        }
    }

    /// <summary>Reads every event scripted (waiting for one nothing matches).</summary>
    static void ReadAll(EventChannel ch)
    {
        Check(ErrnoOf(() => ch.Next(ev => false, null, 0, "rdma_get_cm_event")) == Rdma.ETIMEDOUT, "all read");
    }

    static string Ids(List<IntPtr> ids)
    {
        return string.Join(" ", ids.Select(p => (long)p).OrderBy(p => p).Select(p => "0x" + p.ToString("x")));
    }

    /// <summary>Events kept for their ids, dropped with them: an endpoint's
    /// events read while another waited are dropped when it is disposed (an
    /// endpoint made later at the same address gets none of them); a connect
    /// request of a listener is kept until taken, its id destroyed if the
    /// listener or the channel is disposed first; an event of an id not the
    /// channel's is dropped, a connect request's refused (its id
    /// destroyed).</summary>
    internal static void Run()
    {
        int before = Resource.OpenCount;
        var c = new Script();
        var ch = new EventChannel(c);
        const long l = 0x1000, a = 0x2000, n1 = 0x3000, n2 = 0x3100, n3 = 0x3200, n4 = 0x3300;
        var listener = new Listener(ch, new IntPtr(l), false);
        var ep = new Endpoint(ch, false, new IntPtr(a), false);
        var waiter = new Endpoint(ch, false, new IntPtr(0x2800), false);
        c.Add(Rdma.RDMA_CM_EVENT_DISCONNECTED, a, 0);
        c.Add(Rdma.RDMA_CM_EVENT_CONNECT_REQUEST, n1, l);
        c.Add(Rdma.RDMA_CM_EVENT_CONNECT_REQUEST, n2, l);
        c.Add(Rdma.RDMA_CM_EVENT_ESTABLISHED, 0x4000, 0);            // an id not the channel's
        c.Add(Rdma.RDMA_CM_EVENT_CONNECT_REQUEST, n3, 0x5000);       // a listener not the channel's
        c.Add(Rdma.RDMA_CM_EVENT_ESTABLISHED, n1, 0);                // the new id's, before it is taken
        c.Add(Rdma.RDMA_CM_EVENT_ROUTE_RESOLVED, 0x2800, 0);
        var e = ch.Expect(new IntPtr(0x2800), null, Rdma.RDMA_CM_EVENT_ROUTE_RESOLVED, 0, "rdma_resolve_route");
        Check(e.Id == new IntPtr(0x2800) && Ids(c.Destroyed) == "0x3200" && ch.HeldCount == 4,
              "waiting for an endpoint's event: 4 others kept (another's DISCONNECTED, 2 connect requests, the new id's"
              + " ESTABLISHED); an unknown id's dropped; a connect request for no listener of the channel refused, its id"
              + " destroyed (" + Ids(c.Destroyed) + ", " + ch.HeldCount + " kept)");
        var taken = listener.GetRequest(0);
        Check(taken.Handle == new IntPtr(n1), "GetRequest: the first connect request's id");
        Check(ErrnoOf(() => ch.Expect(new IntPtr(n1), null, Rdma.RDMA_CM_EVENT_ESTABLISHED, 0, "rdma_accept")) == 0,
              "the new id's event read before it was taken is its endpoint's");
        ep.Dispose();
        Check(ch.HeldCount == 1, "an endpoint disposed: its DISCONNECTED, read and not taken, dropped ("
              + ch.HeldCount + " kept)");
        var again = new Endpoint(ch, false, new IntPtr(a), false);   // malloc gave the same address
        int errno = ErrnoOf(() => again.AwaitDisconnect(0));
        Check(errno == Rdma.ETIMEDOUT, "an endpoint at the disposed one's address: not given its DISCONNECTED (errno "
              + errno + ")");
        again.Dispose();
        waiter.Dispose();
        var third = new Listener(ch, new IntPtr(0x8000), false);
        c.Events.Enqueue(new CmEvent(Rdma.RDMA_CM_EVENT_CONNECT_REQUEST, -Rdma.ETIMEDOUT, new IntPtr(0x3400),
                                     new IntPtr(0x8000)));
        errno = ErrnoOf(() => third.GetRequest(0));
        third.Dispose();
        Check(errno == Rdma.ETIMEDOUT && Ids(c.Destroyed) == "0x3200 0x3400",
              "a connect request in error: RdmaVerbsException (errno " + errno + ", its status), its id destroyed");
        c.Add(Rdma.RDMA_CM_EVENT_CONNECT_REQUEST, n4, l);
        c.Add(Rdma.RDMA_CM_EVENT_DISCONNECTED, n2, 0);
        ReadAll(ch);
        Check(ch.HeldCount == 3, "the events of the requests not taken kept (" + ch.HeldCount + ")");
        listener.Dispose();
        Check(Ids(c.Destroyed) == "0x3100 0x3200 0x3300 0x3400" && ch.HeldCount == 0,
              "a listener disposed: the ids of its 2 connect requests not taken destroyed, their events dropped ("
              + Ids(c.Destroyed) + ")");
        // A connect request not taken when the channel is disposed (its
        // listener with it): its id destroyed.
        var second = new Listener(ch, new IntPtr(0x7000), false);
        c.Add(Rdma.RDMA_CM_EVENT_CONNECT_REQUEST, 0x7100, 0x7000);
        ReadAll(ch);
        ch.Dispose();
        Check(Ids(c.Destroyed) == "0x3100 0x3200 0x3300 0x3400 0x7100" && second.IsDisposed && taken.IsDisposed
              && Resource.OpenCount == before,
              "the channel disposed: its listener and endpoints with it, the connect request not taken destroyed");
    }
}
