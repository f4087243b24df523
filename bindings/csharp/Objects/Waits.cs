// The waits of a channel, which a Dispose ends.
using System;
using System.Runtime.InteropServices;
using System.Threading;

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
    sealed class Waits
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
                    }
                    if (readable)
                        read();
                    else
                        Calls.Drain(wakeFd);
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
            lock (Guard)
                Monitor.PulseAll(Guard);
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
}
