// The waits of a channel, which a Dispose ends.
using System;
using System.Runtime.InteropServices;
using System.Threading;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;

namespace RdmaVerbs
{
    /// <summary>The waits of a channel (an event channel, a completion
    /// channel), which any number of threads may be in at once and which a
    /// Dispose ends: one thread at a time polls the channel's descriptor
    /// (with the channel's wake descriptor, an eventfd) and reads one event,
    /// kept for whoever wants it; the others wait (Monitor.Wait) for what it
    /// read. Disposing the channel, or the object a thread waits for (an
    /// endpoint, a listener, a CQ), signals both: each waiter then finds what
    /// it waited on disposed and throws RdmaVerbsException EBADF,
    /// "closed".</summary>
    sealed partial class Waits : Reactor.IWatched
    {
        /// <summary>Guards what the channel keeps; never held while polling.</summary>
        internal readonly object Guard = new object();
        bool reading;
        readonly int wakeFd = Calls.EventFd();
        readonly Resource channel;

        internal Waits(Resource channel)
        {
            this.channel = channel;
        }

        /// <summary>What take gives (under Guard; null: nothing yet), once an
        /// event read (read, under Guard) gives it, timeoutMs at most
        /// (negative: no limit); ready waits, unlocked, until an event can be
        /// read (true) or the wake descriptor is readable (false). EBADF
        /// ("closed") as soon as the channel or who (if not null) is being
        /// disposed.</summary>
        internal T Await<T>(Resource who, Func<T> take, Func<int, string, int, bool> ready, Action read,
                            int timeoutMs, string function) where T : class
        {
            var deadline = DateTime.UtcNow.AddMilliseconds(Math.Max(0, timeoutMs));
            Monitor.Enter(Guard);
            try {
                while (true) {
                    if (channel.Ending)
                        throw channel.ClosedError(function);
                    if (who != null && who.Ending)
                        throw who.ClosedError(function);
                    var got = take();
                    if (got != null)
                        return got;
                    int left = timeoutMs < 0 ? -1
                        : (int)Math.Ceiling(Math.Max(0, (deadline - DateTime.UtcNow).TotalMilliseconds));
                    if (reading) {   // another thread polls: wait for what it reads
                        if (left == 0)
                            throw new RdmaVerbsException(function, Rdma.ETIMEDOUT, "nothing within " + timeoutMs + " ms");
                        Monitor.Wait(Guard, left < 0 ? Timeout.Infinite : left);
                        continue;
                    }
                    reading = true;
                    bool readable;
                    Monitor.Exit(Guard);
                    try {
                        readable = ready(left, function, wakeFd);
                    } finally {
                        Monitor.Enter(Guard);
                        reading = false;
                        Monitor.PulseAll(Guard);
                        HandOff();
                    }
                    if (readable)
                        read();
                    else
                        Calls.Drain(wakeFd);
                    Serve();
                }
            } finally {
                Monitor.Exit(Guard);
            }
        }

        /// <summary>Ends the waits: each checks again whether what it waits on
        /// is being disposed.</summary>
        internal void Wake()
        {
            Calls.Signal(wakeFd);
            lock (Guard) {
                Monitor.PulseAll(Guard);
                Serve();
            }
            Reactor.Kick();
        }

        /// <summary>Once no thread polls (they were woken: the channel is
        /// being disposed), the wake descriptor is closed.</summary>
        internal void Close()
        {
            lock (Guard) {
                while (reading)
                    Monitor.Wait(Guard);
            }
            Calls.CloseFd(wakeFd);
        }
    }

    /// <summary>The Task waits (AwaitAsync) hold no thread: each is a
    /// TaskCompletionSource listed here; while any is, the channel's
    /// descriptor is watched by the one reader thread of Reactor (which then
    /// does the polling the blocked threads would do: they wait for what it
    /// reads), and whoever reads an event (the reader or a thread) gives the
    /// tasks what they wait for. A Dispose (ObjectDisposedException), the time
    /// limit (RdmaVerbsException ETIMEDOUT) or the CancellationToken
    /// (TaskCanceledException) ends a task at once; the first to end it
    /// claims it under Guard, so that what it took is never lost.</summary>
    sealed partial class Waits
    {
        sealed class Pending
        {
            internal Resource Who;
            internal Func<object> Take;
            internal Func<int, string, int, bool> Ready;
            internal Action Read;
            internal string Function;
            internal bool Claimed;
            internal Timer Timer;
            internal CancellationTokenRegistration Cancel;
            internal Action<object, Exception, bool> End;   // value, error, canceled
        }

        readonly List<Pending> pending = new List<Pending>();
        bool reactorHolds;
        int watchFd = -1;

        /// <summary>What take gives, as a task: at once if it gives it now,
        /// else once an event read gives it (fd watched by the reader
        /// meanwhile), timeoutMs at most (negative: no limit; else
        /// ETIMEDOUT); ObjectDisposedException as soon as the channel or who
        /// is being disposed; canceled by ct.</summary>
        internal Task<T> AwaitAsync<T>(Resource who, Func<T> take, Func<int, string, int, bool> ready, Action read,
                                       int fd, int timeoutMs, string function, CancellationToken ct) where T : class
        {
            var tcs = new TaskCompletionSource<T>(TaskCreationOptions.RunContinuationsAsynchronously);
            var p = new Pending { Who = who, Take = take, Ready = ready, Read = read, Function = function };
            p.End = (v, e, canceled) => {
                if (canceled)
                    tcs.TrySetCanceled(ct);
                else if (e != null)
                    tcs.TrySetException(e);
                else
                    tcs.TrySetResult((T)v);
            };
            lock (Guard) {
                watchFd = fd;
                pending.Add(p);
                Serve();
                if (p.Claimed)
                    return tcs.Task;
                if (timeoutMs >= 0)
                    p.Timer = new Timer(_ => Expire(p, timeoutMs), null, timeoutMs, Timeout.Infinite);
                HandOff();
            }
            if (ct.CanBeCanceled)
                p.Cancel = ct.Register(() => {
                    lock (Guard) {
                        if (p.Claimed)
                            return;
                        Claim(p);
                    }
                    p.End(null, null, true);
                });
            return tcs.Task;
        }

        void Expire(Pending p, int timeoutMs)
        {
            lock (Guard) {
                if (p.Claimed)
                    return;
                Claim(p);
            }
            p.End(null, new RdmaVerbsException(p.Function, Rdma.ETIMEDOUT, "nothing within " + timeoutMs + " ms"), false);
        }

        /// <summary>p ends (under Guard): no longer listed, its time limit and
        /// its token's registration dropped.</summary>
        void Claim(Pending p)
        {
            p.Claimed = true;
            pending.Remove(p);
            if (p.Timer != null)
                p.Timer.Dispose();
            p.Cancel.Dispose();
            if (pending.Count == 0)
                Reactor.Kick();   // the reader lets the descriptor go
        }

        /// <summary>Gives each listed task what it waits for, if it is there,
        /// or its closed error (under Guard).</summary>
        void Serve()
        {
            foreach (var p in pending.ToList()) {
                Exception closed = channel.Ending ? channel.DisposedError(p.Function)
                    : p.Who != null && p.Who.Ending ? p.Who.DisposedError(p.Function) : null;
                if (closed != null) {
                    Claim(p);
                    p.End(null, closed, false);
                    continue;
                }
                object got;
                try {
                    got = p.Take();
                } catch (Exception e) {
                    Claim(p);
                    p.End(null, e, false);
                    continue;
                }
                if (got == null)
                    continue;
                Claim(p);
                p.End(got, null, false);
            }
        }

        /// <summary>If tasks wait and no thread polls, the reader takes the
        /// polling (under Guard).</summary>
        void HandOff()
        {
            if (reading || pending.Count == 0 || channel.Ending)
                return;
            reading = true;
            reactorHolds = true;
            Reactor.Watch(this);
        }

        public int Fd {
            get { return watchFd; }
        }

        /// <summary>The reader saw the descriptor readable: an event read (if
        /// one is still there), given to whom it is for. Read as a wait for
        /// any event reads, if one waits; else as the first wait's.</summary>
        public void Readable()
        {
            lock (Guard) {
                if (!reactorHolds || pending.Count == 0 || channel.Ending)
                    return;
                var first = pending.FirstOrDefault(p => p.Who == null) ?? pending[0];
                bool ready;
                try {
                    ready = first.Ready(0, first.Function, -1);
                } catch (RdmaVerbsException) {
                    ready = false;   // ETIMEDOUT: a thread read it first
                }
                if (!ready)
                    return;
                try {
                    first.Read();
                } catch (Exception e) {
                    foreach (var p in pending.ToList()) {
                        Claim(p);
                        p.End(null, e, false);
                    }
                }
                Monitor.PulseAll(Guard);
                Serve();
            }
        }

        /// <summary>Whether the reader keeps watching; if not, the polling is
        /// the threads' again.</summary>
        public bool Keep()
        {
            lock (Guard) {
                if (!reactorHolds)
                    return false;
                if (pending.Count > 0 && !channel.Ending)
                    return true;
                reactorHolds = false;
                reading = false;
                Monitor.PulseAll(Guard);
                return false;
            }
        }
    }
}
