// The Task forms of the waits, and the one reader thread they share.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;

namespace RdmaVerbs
{
    /// <summary>What the Task waits run on, whatever their number: one
    /// reader thread ("rdmaverbs-reactor", a background thread started with
    /// the first wait) that polls the descriptor of every channel a Task
    /// waits on (one entry per channel, however many tasks wait on it) and an
    /// eventfd that tells it the set changed. Time limits are Timers, the
    /// polls of a CQ without a channel Task.Delay: no thread is held by a
    /// pending wait. No program code runs on the reader: each task completes
    /// with its continuations run asynchronously (on the thread pool or the
    /// awaiting context).</summary>
    static class Reactor
    {
        internal interface IWatched
        {
            int Fd { get; }
            void Readable();
            bool Keep();
        }

        static readonly object Lock = new object();
        static readonly List<IWatched> Watched = new List<IWatched>();
        static int kickFd = -1;

        [StructLayout(LayoutKind.Sequential)]
        struct PollFd
        {
            public int fd;
            public short events, revents;
        }

        [DllImport("libc.so.6", SetLastError = true)]
        static extern int poll([In, Out] PollFd[] fds, ulong nfds, int timeout);

        internal static void Watch(IWatched w)
        {
            lock (Lock) {
                if (kickFd < 0) {
                    kickFd = Calls.EventFd();
                    new Thread(Run) { IsBackground = true, Name = "rdmaverbs-reactor" }.Start();
                }
                Watched.Add(w);
            }
            Kick();
        }

        internal static void Kick()
        {
            int k;
            lock (Lock)
                k = kickFd;
            if (k >= 0)
                Calls.Signal(k);
        }

        static void Run()
        {
            while (true) {
                IWatched[] ws;
                int k;
                lock (Lock) {
                    ws = Watched.ToArray();
                    k = kickFd;
                }
                var p = new PollFd[ws.Length + 1];
                p[0] = new PollFd { fd = k, events = 1 };
                for (int i = 0; i < ws.Length; i++)
                    p[i + 1] = new PollFd { fd = ws[i].Fd, events = 1 };
                int r = poll(p, (ulong)p.Length, -1);
                if (r > 0 && p[0].revents != 0)
                    Calls.Drain(k);
                for (int i = 0; i < ws.Length; i++) {
                    try {
                        if (r > 0 && p[i + 1].revents != 0)
                            ws[i].Readable();
                    } catch (Exception) {
                        // Readable ends its waits itself
                    }
                    if (!ws[i].Keep()) {
                        lock (Lock)
                            Watched.Remove(ws[i]);
                    }
                }
            }
        }
    }

    public sealed partial class EventChannel
    {
        /// <summary>Next(timeoutMs) as a Task, which holds no thread while it
        /// waits (the channel's descriptor is watched by the one reader of
        /// every Task wait): RdmaVerbsException ETIMEDOUT after timeoutMs
        /// (negative: no limit), ObjectDisposedException at once when the
        /// channel is disposed, TaskCanceledException when ct is canceled (an
        /// event it had not taken stays for the next wait).</summary>
        public Task<CmEvent> NextAsync(int timeoutMs, CancellationToken ct = default(CancellationToken))
        {
            Check();
            return waits.AwaitAsync(null, () => {
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
            }, source.Fd, timeoutMs, "rdma_get_cm_event", ct);
        }

        /// <summary>The next event that matches, as a Task (ObjectDisposedException
        /// also when who is disposed).</summary>
        internal Task<CmEvent> NextAsync(Func<CmEvent, bool> match, Resource who, int timeoutMs, string function,
                                         CancellationToken ct)
        {
            Check();
            return waits.AwaitAsync(who, () => Take(match), source.Await, () => {
                var e = source.Get();
                if (e != null)
                    Route(e);
            }, source.Fd, timeoutMs, function, ct);
        }

        /// <summary>Expect as a Task.</summary>
        internal async Task<CmEvent> ExpectAsync(IntPtr id, Resource who, int want, int timeoutMs, string function,
                                                 CancellationToken ct)
        {
            var e = await NextAsync(ev => ev.Id == id, who, timeoutMs, function, ct).ConfigureAwait(false);
            if (e.Type != want || e.Status != 0)
                throw new RdmaVerbsException(function, e.Errno, e.Name + " status " + e.Status + ", not "
                                             + Rdma.rdma_event_str((uint)want));
            return e;
        }
    }

    public sealed partial class CompletionChannel
    {
        /// <summary>WaitEvent as a Task, which holds no thread while it waits:
        /// the CQ of the next event; ETIMEDOUT after timeoutMs (negative: no
        /// limit), ObjectDisposedException at once when the channel is
        /// disposed, TaskCanceledException when ct is canceled.</summary>
        public Task<CompletionQueue> WaitEventAsync(int timeoutMs, CancellationToken ct = default(CancellationToken))
        {
            Check();
            return waits.AwaitAsync(null, () => {
                if (pending.Count == 0)
                    return null;
                var c = pending[0];
                pending.RemoveAt(0);
                return c;
            }, Ready, Read, fd, timeoutMs, "ibv_get_cq_event", ct);
        }

        internal Task<CompletionQueue> WaitForAsync(CompletionQueue cq, int timeoutMs, CancellationToken ct)
        {
            Check();
            return waits.AwaitAsync(cq, () => pending.Remove(cq) ? cq : null, Ready, Read, fd, timeoutMs,
                                    "ibv_get_cq_event", ct);
        }
    }

    public sealed partial class CompletionQueue
    {
        /// <summary>WaitEvent as a Task (this CQ's next event on its channel,
        /// acknowledged), which holds no thread while it waits; ETIMEDOUT,
        /// ObjectDisposedException when the CQ or its channel is disposed,
        /// TaskCanceledException when ct is canceled.</summary>
        public Task WaitEventAsync(int timeoutMs, CancellationToken ct = default(CancellationToken))
        {
            Check();
            if (channel == null)
                throw new InvalidOperationException("the CQ has no completion channel");
            return channel.WaitForAsync(this, timeoutMs, ct);
        }

        /// <summary>Poll(n, timeoutMs) as a Task: polled every millisecond
        /// (Task.Delay: no thread held meanwhile) until n completions;
        /// ETIMEDOUT after timeoutMs (negative: no limit; those reaped are then
        /// lost to the caller, their buffers released),
        /// ObjectDisposedException at once when the CQ is disposed,
        /// TaskCanceledException when ct is canceled (those reaped
        /// lost).</summary>
        public async Task<Completion[]> PollAsync(int n, int timeoutMs, CancellationToken ct = default(CancellationToken))
        {
            var got = new List<Completion>(n);
            var deadline = DateTime.UtcNow.AddMilliseconds(timeoutMs);
            var closed = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            lock (polls)
                polls.Add(closed);
            try {
                while (true) {
                    if (Ending)
                        throw DisposedError("ibv_poll_cq");
                    try {
                        while (got.Count < n) {
                            var some = Poll(Math.Min(16, n - got.Count));
                            if (some.Length == 0)
                                break;
                            got.AddRange(some);
                        }
                    } catch (ObjectDisposedException) {
                        throw DisposedError("ibv_poll_cq");
                    }
                    if (got.Count == n)
                        return got.ToArray();
                    if (timeoutMs >= 0 && DateTime.UtcNow > deadline)
                        throw new RdmaVerbsException("ibv_poll_cq", Rdma.ETIMEDOUT, got.Count + " of " + n
                                                     + " completions within " + timeoutMs + " ms");
                    await Task.WhenAny(Task.Delay(1, ct), closed.Task).ConfigureAwait(false);
                    if (ct.IsCancellationRequested)
                        throw new TaskCanceledException();
                }
            } finally {
                lock (polls)
                    polls.Remove(closed);
            }
        }

        /// <summary>The PollAsync in flight, each ended at once by a Dispose.</summary>
        readonly List<TaskCompletionSource<bool>> polls = new List<TaskCompletionSource<bool>>();

        void EndPolls()
        {
            lock (polls)
                foreach (var p in polls)
                    p.TrySetResult(true);
        }
    }

    public sealed partial class Endpoint
    {
        /// <summary>Resolve(events, ...) as a Task, which holds no thread while
        /// it waits for the two events; on a failure (ETIMEDOUT, disposed,
        /// canceled) what was made is disposed.</summary>
        public static async Task<Endpoint> ResolveAsync(EventChannel events, string addr, int port, int timeoutMs,
                                                        CancellationToken ct = default(CancellationToken))
        {
            IntPtr id;
            Rdma.rdma_create_id(events.Handle, out id, IntPtr.Zero, (uint)Rdma.RDMA_PS_TCP);
            var ep = new Endpoint(events, false, id, true);
            try {
                var hints = new rdma_addrinfo { ai_port_space = Rdma.RDMA_PS_TCP };
                IntPtr res;
                Rdma.rdma_getaddrinfo(addr, port.ToString(), ref hints, out res);
                try {
                    Rdma.rdma_resolve_addr(id, IntPtr.Zero, Marshal.PtrToStructure<rdma_addrinfo>(res).ai_dst_addr, timeoutMs);
                } finally {
                    Rdma.rdma_freeaddrinfo(res);
                }
                await events.ExpectAsync(id, ep, Rdma.RDMA_CM_EVENT_ADDR_RESOLVED, timeoutMs, "rdma_resolve_addr", ct)
                    .ConfigureAwait(false);
                Rdma.rdma_resolve_route(id, timeoutMs);
                await events.ExpectAsync(id, ep, Rdma.RDMA_CM_EVENT_ROUTE_RESOLVED, timeoutMs, "rdma_resolve_route", ct)
                    .ConfigureAwait(false);
                return ep;
            } catch (Exception) {
                DisposeAfterFailure(ep);
                throw;
            }
        }

        /// <summary>rdma_connect (DefaultParam), then its ESTABLISHED event as
        /// a Task, which holds no thread while it waits: RdmaVerbsException on
        /// another event (ECONNREFUSED, ...) or ETIMEDOUT after timeoutMs
        /// (negative: no limit), ObjectDisposedException at once when the
        /// endpoint or its channel is disposed, TaskCanceledException when ct
        /// is canceled.</summary>
        public Task ConnectAsync(int timeoutMs, CancellationToken ct = default(CancellationToken))
        {
            Check();
            var param = DefaultParam();
            Rdma.rdma_connect(id, ref param);
            return events.ExpectAsync(id, this, Rdma.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, "rdma_connect", ct);
        }

        /// <summary>rdma_accept (DefaultParam), then its ESTABLISHED event as a
        /// Task (as ConnectAsync).</summary>
        public Task AcceptAsync(int timeoutMs, CancellationToken ct = default(CancellationToken))
        {
            Check();
            var param = DefaultParam();
            Rdma.rdma_accept(id, ref param);
            return events.ExpectAsync(id, this, Rdma.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, "rdma_accept", ct);
        }

        /// <summary>rdma_disconnect, then its DISCONNECTED event as a Task (as
        /// ConnectAsync).</summary>
        public Task DisconnectAsync(int timeoutMs, CancellationToken ct = default(CancellationToken))
        {
            Check();
            Rdma.rdma_disconnect(id);
            return AwaitDisconnectAsync(timeoutMs, ct);
        }

        /// <summary>The DISCONNECTED event of a connection the peer ends, as a
        /// Task (as ConnectAsync).</summary>
        public Task AwaitDisconnectAsync(int timeoutMs, CancellationToken ct = default(CancellationToken))
        {
            Check();
            return events.ExpectAsync(id, this, Rdma.RDMA_CM_EVENT_DISCONNECTED, timeoutMs, "rdma_disconnect", ct);
        }
    }

    public sealed partial class Listener
    {
        /// <summary>GetRequest as a Task, which holds no thread while it waits:
        /// the endpoint of the next connect request; ETIMEDOUT after timeoutMs
        /// (negative: no limit), ObjectDisposedException at once when the
        /// listener or its channel is disposed, TaskCanceledException when ct
        /// is canceled.</summary>
        public async Task<Endpoint> GetRequestAsync(int timeoutMs, CancellationToken ct = default(CancellationToken))
        {
            Check();
            return Request(await events.NextAsync(ev => ev.ListenId == id || ev.Id == id, this, timeoutMs,
                                                  "rdma_get_request", ct).ConfigureAwait(false));
        }
    }
}
