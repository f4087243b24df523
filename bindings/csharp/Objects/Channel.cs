// rdma_cm's event channel and its events.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;

namespace RdmaVerbs
{
    /// <summary>An rdma_cm event as read (a copy), then acknowledged.</summary>
    public sealed class CmEvent
    {
        public readonly int Type, Status;
        public readonly IntPtr Id, ListenId;

        internal CmEvent(int type, int status, IntPtr id, IntPtr listenId)
        {
            Type = type;
            Status = status;
            Id = id;
            ListenId = listenId;
        }

        public string Name {
            get { return Rdma.rdma_event_str((uint)Type); }
        }

        /// <summary>The errno an unwanted event stands for: its status when
        /// negative, ECONNREFUSED for a rejection, else EPROTO.</summary>
        internal int Errno {
            get { return Status < 0 ? -Status : Type == Rdma.RDMA_CM_EVENT_REJECTED ? 111 : 71; }
        }
    }

    /// <summary>An rdma_cm event channel: the events of the ids made on it,
    /// each read and acknowledged at once; every wait can be bounded (its
    /// file descriptor polled first: ETIMEDOUT; a negative limit: none).
    /// One thread waits on it at a time. Disposing it disposes the ids made
    /// on it. An event read while waiting for another is kept for its id if
    /// that is one of this channel's endpoints or listeners, or a connect
    /// request's new id for one of its listeners; else it is dropped (a
    /// connect request's id destroyed: the request refused). When an
    /// endpoint or listener is disposed, the events kept for it are dropped,
    /// and the ids of the connect requests it had not taken
    /// (Listener.GetRequest) are destroyed: no event of a closed id is ever
    /// given to another id at the same address.</summary>
    public sealed partial class EventChannel : Resource
    {
        /// <summary>The C calls of a channel (the tests give a stand-in).</summary>
        internal interface ISource
        {
            /// <summary>Waits until an event can be read (true) or wakeFd is
            /// readable (false), timeoutMs at most (negative: no limit), else
            /// RdmaVerbsException(function, ETIMEDOUT).</summary>
            bool Await(int timeoutMs, string function, int wakeFd);

            /// <summary>The next event (rdma_get_cm_event), copied, acknowledged.</summary>
            CmEvent Get();

            /// <summary>rdma_destroy_id, of a connect request's id nobody took.</summary>
            void DestroyId(IntPtr id);

            /// <summary>The descriptor that is readable when an event can be
            /// read (the Task waits' reader watches it); -1: none.</summary>
            int Fd { get; }
        }

        sealed class Source : ISource
        {
            readonly IntPtr channel;
            readonly int fd;

            internal Source(IntPtr channel, int fd)
            {
                this.channel = channel;
                this.fd = fd;
            }

            public bool Await(int timeoutMs, string function, int wakeFd)
            {
                return Calls.Readable(fd, wakeFd, timeoutMs, function);
            }

            public CmEvent Get()
            {
                IntPtr ev;
                Rdma.rdma_get_cm_event(channel, out ev);
                var e = Marshal.PtrToStructure<rdma_cm_event>(ev);
                var copy = new CmEvent((int)e.@event, e.status, e.id, e.listen_id);
                Rdma.rdma_ack_cm_event(ev);
                return copy;
            }

            public void DestroyId(IntPtr id)
            {
                Rdma.rdma_destroy_id(id);
            }

            public int Fd {
                get { return fd; }
            }
        }

        readonly IntPtr channel;
        readonly int fd;
        readonly ISource source;
        /// <summary>The waits (any number of threads at once); its Guard
        /// guards held and ids, and is also held from an event's read to its
        /// routing, so that an id forgotten (then destroyed, its address free
        /// for another) never gets an event read before. Never held while
        /// polling.</summary>
        readonly Waits waits;
        readonly object guard;
        readonly List<CmEvent> held = new List<CmEvent>();
        /// <summary>The ids whose events are kept: an endpoint's or a
        /// listener's (to IntPtr.Zero), or a connect request's new id not yet
        /// taken (to its listener's id).</summary>
        readonly Dictionary<IntPtr, IntPtr> ids = new Dictionary<IntPtr, IntPtr>();

        /// <summary>rdma_create_event_channel.</summary>
        public EventChannel() : base(true)
        {
            channel = Rdma.rdma_create_event_channel();
            fd = Marshal.PtrToStructure<rdma_event_channel>(channel).fd;
            source = new Source(channel, fd);
            waits = new Waits(this);
            guard = waits.Guard;
            Opened();
        }

        /// <summary>A channel whose C calls are source's (the tests' stand-in:
        /// nothing made, nothing destroyed but through source).</summary>
        internal EventChannel(ISource source) : base(false)
        {
            fd = -1;
            this.source = source;
            waits = new Waits(this);
            guard = waits.Guard;
            Opened();
        }

        public override IntPtr Handle {
            get { Check(); return channel; }
        }

        /// <summary>Its file descriptor.</summary>
        public int Fd {
            get { Check(); return fd; }
        }

        static bool IsRequest(CmEvent e)
        {
            return e.Type == Rdma.RDMA_CM_EVENT_CONNECT_REQUEST;
        }

        /// <summary>The next event (of any id), timeoutMs at most. A connect
        /// request's new id is then the caller's (no listener here takes
        /// it).</summary>
        public CmEvent Next(int timeoutMs)
        {
            Check();
            return waits.Await(null, () => {
                if (held.Count == 0)
                    return null;
                var e = held[0];
                held.RemoveAt(0);
                if (IsRequest(e))
                    ids.Remove(e.Id);
                return e;
            }, source.Await, () => {
                var e = source.Get();
                if (e != null)
                    held.Add(e);
            }, timeoutMs, "rdma_get_cm_event");
        }

        /// <summary>The next event that matches; the others read meanwhile are
        /// kept for their ids (or dropped, as the class says).</summary>
        internal CmEvent Next(Func<CmEvent, bool> match, Resource who, int timeoutMs, string function)
        {
            Check();
            return waits.Await(who, () => Take(match), source.Await, () => {
                var e = source.Get();
                if (e != null)
                    Route(e);
            }, timeoutMs, function);
        }

        /// <summary>The first kept event that matches, taken (under guard), or null.</summary>
        CmEvent Take(Func<CmEvent, bool> match)
        {
            int i = held.FindIndex(ev => match(ev));
            if (i < 0)
                return null;
            var e = held[i];
            held.RemoveAt(i);
            if (IsRequest(e) && ids.ContainsKey(e.Id))
                ids[e.Id] = IntPtr.Zero;   // taken: no listener destroys it
            return e;
        }

        /// <summary>Keeps e for its id, or drops it (under guard).</summary>
        void Route(CmEvent e)
        {
            IntPtr owner;
            if (IsRequest(e) && e.ListenId != IntPtr.Zero && ids.TryGetValue(e.ListenId, out owner) && owner == IntPtr.Zero) {
                ids[e.Id] = e.ListenId;   // a listener's: its new id held until taken
                held.Add(e);
            } else if (IsRequest(e)) {
                source.DestroyId(e.Id);   // for no listener of ours: refused
            } else if (ids.ContainsKey(e.Id)) {
                held.Add(e);
            }
        }

        /// <summary>Keeps the events of id (an endpoint's or a listener's,
        /// made on this channel) from now on; a connect request's id:
        /// taken.</summary>
        internal void Add(IntPtr id)
        {
            lock (guard)
                ids[id] = IntPtr.Zero;
        }

        /// <summary>id is being disposed (then destroyed): its events are
        /// dropped; if it was a listener's, so are its connect requests not
        /// taken, their ids destroyed; if it was a connect request's not
        /// taken, it is destroyed.</summary>
        internal void Forget(IntPtr id)
        {
            lock (guard) {
                IntPtr owner;
                if (!ids.TryGetValue(id, out owner))
                    return;
                ids.Remove(id);
                var requests = ids.Where(p => p.Value == id).Select(p => p.Key).ToList();
                foreach (var r in requests)
                    ids.Remove(r);
                if (owner != IntPtr.Zero)
                    requests.Add(id);
                held.RemoveAll(e => e.Id == id || requests.Contains(e.Id));
                Destroy(requests);
            }
        }

        /// <summary>A connect request taken and not wanted (its event's status
        /// not 0): its events dropped, its id destroyed (the request
        /// refused).</summary>
        internal void Refuse(IntPtr id)
        {
            lock (guard) {
                Forget(id);
                source.DestroyId(id);
            }
        }

        /// <summary>Destroys the ids of requests, each; the first failure is
        /// thrown after.</summary>
        void Destroy(List<IntPtr> requests)
        {
            Exception first = null;
            foreach (var r in requests) {
                try {
                    source.DestroyId(r);
                } catch (Exception e) {
                    if (first == null)
                        first = e;
                }
            }
            if (first != null)
                throw first;
        }

        /// <summary>How many events are kept (for the tests).</summary>
        internal int HeldCount {
            get { lock (guard) return held.Count; }
        }

        /// <summary>The event for id of type want, else RdmaVerbsException:
        /// another event (its errno), or none in time (ETIMEDOUT).</summary>
        internal CmEvent Expect(IntPtr id, Resource who, int want, int timeoutMs, string function)
        {
            var e = Next(ev => ev.Id == id, who, timeoutMs, function);
            if (e.Type != want || e.Status != 0)
                throw new RdmaVerbsException(function, e.Errno, e.Name + " status " + e.Status + ", not "
                                             + Rdma.rdma_event_str((uint)want));
            return e;
        }

        /// <summary>Ends every wait on the channel (EBADF, "closed").</summary>
        internal override void Wake()
        {
            waits.Wake();
        }

        internal override void Destroy()
        {
            waits.Close();   // no thread polls its descriptor any more
            Rdma.rdma_destroy_event_channel(channel);
        }

        internal override void Released()
        {
            if (!Owned)
                waits.Close();   // (a stand-in's: Destroy was not called)
        }
    }
}
