// The endpoint (an rdma_cm id and its QP), what its QP is made with, and
// the listener that gives connect requests as endpoints.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;

namespace RdmaVerbs
{
    /// <summary>What Endpoint.CreateQp makes: an RC QP on a PD, a send CQ and
    /// a receive CQ, an SRQ or none; by default 16 send and 16 receive work
    /// requests (none with an SRQ), one SGE each, and every send work request
    /// completed (SignalAll, sq_sig_all 1), so that a send whose completion
    /// is awaited makes one. SignalAll = false: then only sends posted with
    /// the signaled flag complete (a SendWork has it unless made
    /// Unsignaled).</summary>
    public sealed class QpInit
    {
        internal readonly ProtectionDomain Pd;
        internal readonly CompletionQueue SendCq, RecvCq;
        public SharedReceiveQueue Srq;
        public int MaxSendWr = 16, MaxRecvWr = 16, MaxSendSge = 1, MaxRecvSge = 1, MaxInlineData;
        public bool SignalAll = true;

        public QpInit(ProtectionDomain pd, CompletionQueue cq) : this(pd, cq, cq)
        {
        }

        public QpInit(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq)
        {
            Pd = pd;
            SendCq = sendCq;
            RecvCq = recvCq;
        }
    }

    /// <summary>An rdma_cm id and, once made, its QP (CreateQp): one end of
    /// an RC connection. A client's comes from Resolve, a server's from
    /// Listener.GetRequest; then Connect or Accept. Every wait for an
    /// rdma_cm event takes its time limit (ETIMEDOUT; negative: none);
    /// another event than the one awaited (REJECTED, UNREACHABLE, ...)
    /// throws RdmaVerbsException with its errno. Disposing it first disposes
    /// what was made on it, the last made first: its QP (rdma_destroy_qp),
    /// and the PDs, CQs and completion channels made with it (on its
    /// context: they would outlive the id's hold on the device otherwise;
    /// make them on Context to keep them past it); then it destroys its id,
    /// and its own event channel if it made one.</summary>
    public sealed partial class Endpoint : Resource
    {
        readonly EventChannel events;
        readonly bool ownEvents;
        readonly IntPtr id;
        QueuePair qp;

        internal Endpoint(EventChannel events, bool ownEvents, IntPtr id, bool owned) : base(owned)
        {
            this.events = events;
            this.ownEvents = ownEvents;
            this.id = id;
            Opened(ownEvents ? null : events);
            if (events != null)
                events.Add(id);
        }

        /// <summary>A client's endpoint: an id on events, the address of
        /// addr:port and then the route resolved, each event awaited timeoutMs
        /// at most. On a failure, what was made is disposed.</summary>
        public static Endpoint Resolve(EventChannel events, string addr, int port, int timeoutMs)
        {
            return Resolve(events, false, addr, port, timeoutMs);
        }

        /// <summary>As Resolve, on an event channel of the endpoint's own.</summary>
        public static Endpoint Resolve(string addr, int port, int timeoutMs)
        {
            var own = new EventChannel();
            try {
                return Resolve(own, true, addr, port, timeoutMs);
            } catch (Exception) {
                DisposeAfterFailure(own);
                throw;
            }
        }

        static Endpoint Resolve(EventChannel events, bool own, string addr, int port, int timeoutMs)
        {
            IntPtr id;
            Rdma.rdma_create_id(events.Handle, out id, IntPtr.Zero, (uint)Rdma.RDMA_PS_TCP);
            var ep = new Endpoint(events, own, id, true);
            try {
                var hints = new rdma_addrinfo { ai_port_space = Rdma.RDMA_PS_TCP };
                IntPtr res;
                Rdma.rdma_getaddrinfo(addr, port.ToString(), ref hints, out res);
                try {
                    Rdma.rdma_resolve_addr(id, IntPtr.Zero, Marshal.PtrToStructure<rdma_addrinfo>(res).ai_dst_addr, timeoutMs);
                } finally {
                    Rdma.rdma_freeaddrinfo(res);
                }
                events.Expect(id, ep, Rdma.RDMA_CM_EVENT_ADDR_RESOLVED, timeoutMs, "rdma_resolve_addr");
                Rdma.rdma_resolve_route(id, timeoutMs);
                events.Expect(id, ep, Rdma.RDMA_CM_EVENT_ROUTE_RESOLVED, timeoutMs, "rdma_resolve_route");
                return ep;
            } catch (Exception) {
                DisposeAfterFailure(ep);
                throw;
            }
        }

        public override IntPtr Handle {
            get { Check(); return id; }
        }

        /// <summary>The id's device context (id->verbs), on which its PD, CQs
        /// and channels are made.</summary>
        public IntPtr Context {
            get { Check(); return Marshal.PtrToStructure<rdma_cm_id>(id).verbs; }
        }

        public EventChannel Events {
            get { return events; }
        }

        /// <summary>Makes the id's QP (rdma_create_qp); it is disposed before
        /// the PD, CQs and SRQ it uses, and before the id.</summary>
        public QueuePair CreateQp(QpInit init)
        {
            Check();
            if (qp != null)
                throw new InvalidOperationException("the endpoint already has a QP");
            qp = new QueuePair(this, id, init);
            return qp;
        }

        /// <summary>The QP (CreateQp's).</summary>
        public QueuePair Qp {
            get {
                Check();
                var q = qp;
                if (q == null)
                    throw new InvalidOperationException("the endpoint has no QP (CreateQp)");
                q.Check();
                return q;
            }
        }

        internal void Forget(QueuePair q)
        {
            if (qp == q)
                qp = null;
        }

        /// <summary>The parameters Connect and Accept use unless given others:
        /// one RDMA read or atomic in flight each way, 7 retries, 7 RNR
        /// retries.</summary>
        public static rdma_conn_param DefaultParam()
        {
            return new rdma_conn_param { responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 };
        }

        /// <summary>rdma_connect, then its ESTABLISHED event.</summary>
        public void Connect(int timeoutMs)
        {
            Connect(DefaultParam(), timeoutMs);
        }

        public void Connect(rdma_conn_param param, int timeoutMs)
        {
            Check();
            Rdma.rdma_connect(id, ref param);
            events.Expect(id, this, Rdma.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, "rdma_connect");
        }

        /// <summary>rdma_accept (a server's endpoint), then its ESTABLISHED event.</summary>
        public void Accept(int timeoutMs)
        {
            Accept(DefaultParam(), timeoutMs);
        }

        public void Accept(rdma_conn_param param, int timeoutMs)
        {
            Check();
            Rdma.rdma_accept(id, ref param);
            events.Expect(id, this, Rdma.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, "rdma_accept");
        }

        /// <summary>rdma_disconnect, then its DISCONNECTED event.</summary>
        public void Disconnect(int timeoutMs)
        {
            Check();
            Rdma.rdma_disconnect(id);
            AwaitDisconnect(timeoutMs);
        }

        /// <summary>The DISCONNECTED event of a connection the peer ends.</summary>
        public void AwaitDisconnect(int timeoutMs)
        {
            Check();
            events.Expect(id, this, Rdma.RDMA_CM_EVENT_DISCONNECTED, timeoutMs, "rdma_disconnect");
        }

        public void PostSend(params SendWork[] wrs)
        {
            Qp.PostSend(wrs);
        }

        public void PostRecv(params RecvWork[] wrs)
        {
            Qp.PostRecv(wrs);
        }

        /// <summary>Ends a wait for this endpoint's event (EBADF, "closed").</summary>
        internal override void Wake()
        {
            if (events != null)
                events.Wake();
        }

        internal override void Closing()
        {
            if (events != null)
                events.Forget(id);   // before the id is destroyed: its address is then free for another
        }

        internal override void Destroy()
        {
            Rdma.rdma_destroy_id(id);
            if (ownEvents)
                events.Dispose();
        }
    }

    /// <summary>A listening rdma_cm id: GetRequest gives each connect request
    /// as an Endpoint, to be given its QP and accepted. Disposing it destroys
    /// the ids of the connect requests read and not taken (refusing them),
    /// then its own; the endpoints it gave are disposed on their own.</summary>
    public sealed partial class Listener : Resource
    {
        readonly EventChannel events;
        readonly bool ownEvents;
        readonly IntPtr id;

        /// <summary>A listening id on events; not owned: the tests' fake.</summary>
        internal Listener(EventChannel events, IntPtr id, bool owned) : this(events, false, id, owned)
        {
        }

        Listener(EventChannel events, bool ownEvents, IntPtr id, bool owned) : base(owned)
        {
            this.events = events;
            this.ownEvents = ownEvents;
            this.id = id;
            Opened(ownEvents ? null : events);
            events.Add(id);
        }

        /// <summary>As Listen(events, ...), on an event channel of the
        /// listener's own, disposed with it (after the endpoints it gave,
        /// which are on it).</summary>
        public static Listener Listen(string addr, int port, int backlog)
        {
            var own = new EventChannel();
            try {
                return Listen(own, true, addr, port, backlog);
            } catch (Exception) {
                DisposeAfterFailure(own);
                throw;
            }
        }

        /// <summary>An id on events bound to addr:port and listening (backlog).</summary>
        public static Listener Listen(EventChannel events, string addr, int port, int backlog)
        {
            return Listen(events, false, addr, port, backlog);
        }

        static Listener Listen(EventChannel events, bool own, string addr, int port, int backlog)
        {
            IntPtr id;
            Rdma.rdma_create_id(events.Handle, out id, IntPtr.Zero, (uint)Rdma.RDMA_PS_TCP);
            var l = new Listener(events, own, id, true);
            try {
                var hints = new rdma_addrinfo { ai_flags = Rdma.RAI_PASSIVE, ai_port_space = Rdma.RDMA_PS_TCP };
                IntPtr res;
                Rdma.rdma_getaddrinfo(addr, port.ToString(), ref hints, out res);
                try {
                    Rdma.rdma_bind_addr(id, Marshal.PtrToStructure<rdma_addrinfo>(res).ai_src_addr);
                } finally {
                    Rdma.rdma_freeaddrinfo(res);
                }
                Rdma.rdma_listen(id, backlog);
                return l;
            } catch (Exception) {
                DisposeAfterFailure(l);
                throw;
            }
        }

        public override IntPtr Handle {
            get { Check(); return id; }
        }

        /// <summary>The next connect request (timeoutMs at most): an endpoint
        /// of the new id, not yet accepted.</summary>
        public Endpoint GetRequest(int timeoutMs)
        {
            Check();
            return Request(events.Next(ev => ev.ListenId == id || ev.Id == id, this, timeoutMs, "rdma_get_request"));
        }

        Endpoint Request(CmEvent e)
        {
            if (e.Type != Rdma.RDMA_CM_EVENT_CONNECT_REQUEST || e.Status != 0) {
                if (e.Type == Rdma.RDMA_CM_EVENT_CONNECT_REQUEST)
                    events.Refuse(e.Id);   // nobody's: destroyed
                throw new RdmaVerbsException("rdma_get_request", e.Errno, e.Name + " status " + e.Status
                                             + ", not RDMA_CM_EVENT_CONNECT_REQUEST");
            }
            return new Endpoint(events, false, e.Id, Owned);   // (a fake listener's: a fake)
        }

        /// <summary>Ends a wait for a connect request (EBADF, "closed").</summary>
        internal override void Wake()
        {
            events.Wake();
        }

        internal override void Closing()
        {
            events.Forget(id);   // the connect requests not taken: their ids destroyed
        }

        internal override void Destroy()
        {
            Rdma.rdma_destroy_id(id);
            if (ownEvents)
                events.Dispose();
        }
    }
}
