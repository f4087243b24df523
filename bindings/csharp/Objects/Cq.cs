// Completion queues and completion channels.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;

namespace RdmaVerbs
{
    /// <summary>A completion queue (ibv_create_cq), on a completion channel
    /// or not. Poll reaps completions, several in one ibv_poll_cq, and
    /// releases what their work requests held. With a channel: Arm, then
    /// WaitEvent (the event acknowledged at once), then Poll. One made on an
    /// endpoint is disposed with it, before its id.</summary>
    public sealed partial class CompletionQueue : Resource
    {
        readonly IntPtr cq;
        readonly CompletionChannel channel;
        readonly Dictionary<uint, QueuePair> qps = new Dictionary<uint, QueuePair>();
        ibv_wc[] wcs = new ibv_wc[16];

        /// <summary>A CQ of cqe entries at least on the endpoint's device
        /// context, its events on channel (or null); disposed with the
        /// endpoint (before its id).</summary>
        public CompletionQueue(Endpoint ep, int cqe, CompletionChannel channel)
            : this(ep, Rdma.ibv_create_cq(ep.Context, cqe, IntPtr.Zero, channel == null ? IntPtr.Zero : channel.Handle, 0),
                   channel, true)
        {
        }

        /// <summary>A CQ of cqe entries at least on a device context, its
        /// events on channel (or null); disposed on its own (or with its
        /// channel).</summary>
        public CompletionQueue(IntPtr context, int cqe, CompletionChannel channel)
            : this(null, Rdma.ibv_create_cq(context, cqe, IntPtr.Zero, channel == null ? IntPtr.Zero : channel.Handle, 0),
                   channel, true)
        {
        }

        internal CompletionQueue(IntPtr cq) : this(null, cq, null, false)
        {
        }

        /// <summary>cq, made on ep's context (a dependent of ep, and of
        /// channel), or on none.</summary>
        internal CompletionQueue(Endpoint ep, IntPtr cq, CompletionChannel channel, bool owned) : base(owned)
        {
            this.cq = cq;
            this.channel = channel;
            Opened(ep, channel);
            if (channel != null)
                channel.Attach(this);
        }

        public override IntPtr Handle {
            get { Check(); return cq; }
        }

        public CompletionChannel Channel {
            get { return channel; }
        }

        internal void Attach(QueuePair qp)
        {
            lock (qps) qps[qp.QpNum] = qp;
        }

        internal void Detach(QueuePair qp)
        {
            lock (qps) {
                QueuePair q;
                if (qps.TryGetValue(qp.QpNum, out q) && q == qp)
                    qps.Remove(qp.QpNum);
            }
        }

        /// <summary>One ibv_poll_cq of up to max completions: those found.</summary>
        public Completion[] Poll(int max)
        {
            lock (this) {
                Check();
                if (max <= 0)
                    throw new ArgumentOutOfRangeException("max");
                if (wcs.Length < max)
                    wcs = new ibv_wc[max];
                int r = Rdma.ibv_poll_cq(cq, max, wcs);
                var out_ = new Completion[r];
                for (int i = 0; i < r; i++) {
                    var c = out_[i] = new Completion(wcs[i]);
                    QueuePair qp;
                    lock (qps) qps.TryGetValue(c.QpNum, out qp);
                    if (qp != null)
                        qp.Completed(c);
                }
                return out_;
            }
        }

        /// <summary>Polls until n completions, timeoutMs at most (negative: no
        /// limit; ETIMEDOUT:
        /// those reaped meanwhile are then lost to the caller, their buffers
        /// released); a millisecond's pause between empty polls.</summary>
        public Completion[] Poll(int n, int timeoutMs)
        {
            var got = new List<Completion>(n);
            var deadline = DateTime.UtcNow.AddMilliseconds(timeoutMs);
            while (got.Count < n) {
                if (Ending)
                    throw ClosedError("ibv_poll_cq");
                Completion[] some;
                try {
                    some = Poll(Math.Min(16, n - got.Count));
                } catch (ObjectDisposedException) {
                    if (Ending)
                        throw ClosedError("ibv_poll_cq");   // disposed between the check and the poll
                    throw;
                }
                got.AddRange(some);
                if (some.Length > 0)
                    continue;
                if (timeoutMs >= 0 && DateTime.UtcNow > deadline)
                    throw new RdmaVerbsException("ibv_poll_cq", Rdma.ETIMEDOUT, got.Count + " of " + n
                                                 + " completions within " + timeoutMs + " ms");
                Thread.Sleep(1);
            }
            return got.ToArray();
        }

        /// <summary>ibv_req_notify_cq: the next completion (solicitedOnly: the
        /// next solicited one, or one in error) makes an event.</summary>
        public void Arm(bool solicitedOnly)
        {
            Check();
            Rdma.ibv_req_notify_cq(cq, solicitedOnly ? 1 : 0);
        }

        /// <summary>Waits for this CQ's next event on its channel, timeoutMs at
        /// most (ETIMEDOUT), acknowledged. Arm again, then Poll.</summary>
        public void WaitEvent(int timeoutMs)
        {
            Check();
            if (channel == null)
                throw new InvalidOperationException("the CQ has no completion channel");
            channel.WaitFor(this, timeoutMs);
        }

        /// <summary>Ends a wait for its event on its channel (EBADF,
        /// "closed"); a poll until completions ends at its next
        /// pause.</summary>
        internal override void Wake()
        {
            if (channel != null)
                channel.WakeWaiters();
            EndPolls();
        }

        internal override void Destroy()
        {
            lock (this)   // not under a poll of another thread's
                Rdma.ibv_destroy_cq(cq);
        }

        internal override void Released()
        {
            if (channel != null)
                channel.Detach(this);
        }
    }

    /// <summary>A completion channel (ibv_create_comp_channel): the events of
    /// its CQs, each acknowledged at once; every wait can be bounded. One
    /// made on an endpoint is disposed with it, before its id.</summary>
    public sealed partial class CompletionChannel : Resource
    {
        readonly IntPtr channel;
        readonly int fd;
        readonly Dictionary<IntPtr, CompletionQueue> cqs = new Dictionary<IntPtr, CompletionQueue>();
        readonly List<CompletionQueue> pending = new List<CompletionQueue>();

        /// <summary>A channel on the endpoint's device context, disposed with
        /// the endpoint (before its id).</summary>
        public CompletionChannel(Endpoint ep) : this(ep, Rdma.ibv_create_comp_channel(ep.Context), true)
        {
        }

        /// <summary>A channel on a device context (an ibv_context *), disposed
        /// on its own.</summary>
        public CompletionChannel(IntPtr context) : this(null, Rdma.ibv_create_comp_channel(context), true)
        {
        }

        CompletionChannel(Endpoint ep, IntPtr channel, bool owned)
            : this(ep, channel, Marshal.PtrToStructure<ibv_comp_channel>(channel).fd, owned)
        {
        }

        /// <summary>channel (its descriptor fd), made on ep's context (a
        /// dependent of ep), or on none; not owned: the tests' fake.</summary>
        internal CompletionChannel(Endpoint ep, IntPtr channel, int fd, bool owned) : base(owned)
        {
            this.channel = channel;
            this.fd = fd;
            waits = new Waits(this);
            Opened(ep);
        }

        /// <summary>The waits (any number of threads at once); its Guard
        /// guards pending.</summary>
        readonly Waits waits;

        public override IntPtr Handle {
            get { Check(); return channel; }
        }

        public int Fd {
            get { Check(); return fd; }
        }

        internal void Attach(CompletionQueue cq)
        {
            lock (cqs) cqs[cq.Handle] = cq;
        }

        internal void Detach(CompletionQueue cq)
        {
            lock (cqs) {
                foreach (var k in cqs.Where(p => p.Value == cq).Select(p => p.Key).ToList())
                    cqs.Remove(k);
            }
            lock (waits.Guard) pending.RemoveAll(c => c == cq);
        }

        /// <summary>The next event, timeoutMs at most: the CQ it is for.</summary>
        public CompletionQueue WaitEvent(int timeoutMs)
        {
            Check();
            return waits.Await(null, () => {
                if (pending.Count == 0)
                    return null;
                var c = pending[0];
                pending.RemoveAt(0);
                return c;
            }, Ready, Read, timeoutMs, "ibv_get_cq_event");
        }

        internal void WaitFor(CompletionQueue cq, int timeoutMs)
        {
            Check();
            waits.Await(cq, () => pending.Remove(cq) ? cq : null, Ready, Read, timeoutMs, "ibv_get_cq_event");
        }

        bool Ready(int timeoutMs, string function, int wakeFd)
        {
            return Calls.Readable(fd, wakeFd, timeoutMs, function);
        }

        /// <summary>Reads an event (the descriptor is readable), kept for its
        /// CQ (under the waits' Guard).</summary>
        void Read()
        {
            IntPtr cq, context;
            Rdma.ibv_get_cq_event(channel, out cq, out context);
            Rdma.ibv_ack_cq_events(cq, 1);
            CompletionQueue q;
            lock (cqs) cqs.TryGetValue(cq, out q);
            if (q != null)
                pending.Add(q);
        }

        /// <summary>Wakes the threads waiting here: each checks whether what
        /// it waits for is being disposed.</summary>
        internal void WakeWaiters()
        {
            waits.Wake();
        }

        /// <summary>Ends every wait on the channel (EBADF, "closed").</summary>
        internal override void Wake()
        {
            waits.Wake();
        }

        internal override void Destroy()
        {
            waits.Close();   // no thread polls its descriptor any more
            Rdma.ibv_destroy_comp_channel(channel);
        }

        internal override void Released()
        {
            if (!Owned)
                waits.Close();
        }
    }
}
