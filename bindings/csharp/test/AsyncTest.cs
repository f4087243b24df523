// The Task waits, on stand-ins: an event channel whose descriptor is a pipe
// made readable by each event scripted, a CQ whose polls find nothing, a
// completion channel of a pipe. A pending wait completes with its event;
// many pending waits hold no thread of their own; a Dispose from another
// thread ends every one at once (ObjectDisposedException), with a time
// limit and without, two on one CQ included; the time limit ends one
// (RdmaVerbsException ETIMEDOUT); a canceled token ends one
// (TaskCanceledException) and loses no event; a blocking wait and a Task on
// one channel each get theirs.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using RdmaVerbs;

static class AsyncTest
{
    delegate IntPtr RecorderPtr();

    [DllImport("libc.so.6")]
    static extern IntPtr dlsym(IntPtr handle, string name);
    [DllImport("libc.so.6")]
    static extern int pipe(int[] fds);
    [DllImport("libc.so.6")]
    static extern long write(int fd, byte[] buf, ulong n);
    [DllImport("libc.so.6")]
    static extern long read(int fd, byte[] buf, ulong n);
    [DllImport("libc.so.6")]
    static extern int close(int fd);

    static void Check(bool ok, string what)
    {
        Test.Check(ok, "async: " + what);
    }

    /// <summary>Events scripted, each making the pipe readable by one byte.</summary>
    sealed class Piped : EventChannel.ISource
    {
        readonly Queue<CmEvent> events = new Queue<CmEvent>();
        internal readonly int[] P = new int[2];

        internal Piped()
        {
            Check(pipe(P) == 0, "pipe");
        }

        public bool Await(int timeoutMs, string function, int wakeFd)
        {
            return Calls.Readable(P[0], wakeFd, timeoutMs, function);
        }

        public CmEvent Get()
        {
            lock (events) {
                read(P[0], new byte[1], 1);
                return events.Count > 0 ? events.Dequeue() : null;
            }
        }

        public void DestroyId(IntPtr id)
        {
        }

        public int Fd {
            get { return P[0]; }
        }

        internal void Add(int type, long id)
        {
            lock (events) {
                events.Enqueue(new CmEvent(type, 0, new IntPtr(id), IntPtr.Zero));
                write(P[1], new byte[] { 1 }, 1);
            }
        }
    }

    /// <summary>What ended t within ms (null: a value), or a TimeoutException.</summary>
    static Exception Outcome(Task t, int ms)
    {
        try {
            if (!t.Wait(ms))
                return new TimeoutException();
            return null;
        } catch (AggregateException e) {
            return e.InnerException;
        }
    }

    static string Show(Exception e)
    {
        return e == null ? "no error" : e.GetType().Name + ": " + e.Message;
    }

    static int Errno(Exception e)
    {
        var r = e as RdmaVerbsException;
        return r == null ? -1 : r.Errno;
    }

    static bool Closed(Exception e)
    {
        return e is ObjectDisposedException && e.Message.Contains("closed while waiting");
    }

    /// <summary>Disposes r from another thread while the tasks are pending;
    /// each must end at once with ObjectDisposedException.</summary>
    static void DisposeEnds(string what, IDisposable r, params Task[] ts)
    {
        Thread.Sleep(100);
        Check(ts.All(t => !t.IsCompleted), what + ": pending before the Dispose");
        var sw = Stopwatch.StartNew();
        var disposer = new Thread(r.Dispose);
        disposer.Start();
        foreach (var t in ts) {
            var e = Outcome(t, 2000);
            Check(Closed(e) && sw.ElapsedMilliseconds < 1000, what + ": " + Show(e) + " after " + sw.ElapsedMilliseconds + " ms");
        }
        Check(disposer.Join(5000), what + ": the Dispose returned");
    }

    public static void Run(IntPtr lib)
    {
        var emptyCq = (RecorderPtr)Marshal.GetDelegateForFunctionPointer(dlsym(lib, "recorder_empty_cq"),
                                                                          typeof(RecorderPtr));
        var src = new Piped();
        var ch = new EventChannel(src);
        var a = new Endpoint(ch, false, new IntPtr(0xa100), false);
        // A pending wait completes with its event (another's dropped).
        var est = a.AwaitDisconnectAsync(5000);
        Thread.Sleep(50);
        Check(!est.IsCompleted, "pending until its event");
        src.Add(Rdma.RDMA_CM_EVENT_ESTABLISHED, 0xb100);
        src.Add(Rdma.RDMA_CM_EVENT_DISCONNECTED, 0xa100);
        Check(Outcome(est, 2000) == null, "the wait got its event: " + Show(Outcome(est, 0)));
        // Many pending waits hold no thread of their own.
        int before = Process.GetCurrentProcess().Threads.Count;
        var many = new List<Task>();
        for (int i = 0; i < 50; i++)
            many.Add(a.AwaitDisconnectAsync(-1));
        Thread.Sleep(100);
        int more = Process.GetCurrentProcess().Threads.Count - before;
        Check(more <= 2, "50 pending waits: " + more + " more threads");
        // The time limit ends one: ETIMEDOUT, near its limit.
        var sw = Stopwatch.StartNew();
        var late = Outcome(ch.NextAsync(100), 2000);
        Check(Errno(late) == Rdma.ETIMEDOUT && sw.ElapsedMilliseconds >= 90 && sw.ElapsedMilliseconds < 1000,
              "a 100 ms limit: " + Show(late) + " at " + sw.ElapsedMilliseconds);
        // A canceled token ends one (TaskCanceledException); the event it
        // waited for goes to the next wait.
        var d = new Endpoint(ch, false, new IntPtr(0xe100), false);
        var cts = new CancellationTokenSource();
        var gone = d.AwaitDisconnectAsync(-1, cts.Token);
        Thread.Sleep(20);
        cts.Cancel();
        var ce = Outcome(gone, 2000);
        Check(ce is TaskCanceledException && gone.IsCanceled, "a canceled token ends a pending wait: " + Show(ce));
        src.Add(Rdma.RDMA_CM_EVENT_DISCONNECTED, 0xe100);
        Thread.Sleep(50);
        var t = Outcome(d.AwaitDisconnectAsync(2000), 2000);
        Check(t == null, "the next wait gets the event the canceled one waited for: " + Show(t));
        var pre = new CancellationTokenSource();
        pre.Cancel();
        Check(Outcome(ch.NextAsync(-1, pre.Token), 2000) is TaskCanceledException, "a token canceled before: canceled");
        var next = ch.NextAsync(2000);
        src.Add(Rdma.RDMA_CM_EVENT_ESTABLISHED, 0xc100);
        t = Outcome(next, 2000);
        Check(t == null && next.Result.Id == new IntPtr(0xc100), "a wait for any event gets one: " + Show(t));
        // A blocking wait and a Task on one channel: each gets its own.
        var b = new Endpoint(ch, false, new IntPtr(0xb200), false);
        var c = new Endpoint(ch, false, new IntPtr(0xc200), false);
        var fb = b.AwaitDisconnectAsync(5000);
        Exception syncEnded = null;
        var th = new Thread(() => {
            try {
                c.AwaitDisconnect(5000);
            } catch (Exception x) {
                syncEnded = x;
            }
        });
        th.Start();
        Thread.Sleep(50);
        src.Add(Rdma.RDMA_CM_EVENT_DISCONNECTED, 0xc200);
        src.Add(Rdma.RDMA_CM_EVENT_DISCONNECTED, 0xb200);
        Check(Outcome(fb, 2000) == null && th.Join(2000) && syncEnded == null,
              "a thread's wait and a Task's, on one channel: " + Show(Outcome(fb, 0)) + ", " + Show(syncEnded));
        // A Dispose from another thread ends every wait at once.
        many.Add(a.AwaitDisconnectAsync(10000));
        DisposeEnds("an endpoint disposed while 51 tasks wait for its events", a, many.ToArray());
        var l = new Listener(ch, new IntPtr(0xd100), false);
        DisposeEnds("a listener disposed while two tasks wait for a request (no limit, 10 s)", l,
                    l.GetRequestAsync(-1), l.GetRequestAsync(10000));
        DisposeEnds("the channel disposed while tasks wait for any event and an endpoint's", ch,
                    ch.NextAsync(-1), b.AwaitDisconnectAsync(-1));
        Check(b.IsDisposed, "the channel disposed: its endpoint with it");
        close(src.P[0]);
        close(src.P[1]);

        // A completion channel (a pipe): a CQ on it awaited by two tasks.
        var q = new int[2];
        Check(pipe(q) == 0, "pipe");
        var cc = new CompletionChannel(null, new IntPtr(0xcc10), q[0], false);
        var on = new CompletionQueue(null, emptyCq(), cc, false);
        DisposeEnds("a CQ disposed while two tasks wait for its event (no limit, 10 s)", on,
                    on.WaitEventAsync(-1), on.WaitEventAsync(10000));
        var cct = Outcome(cc.WaitEventAsync(100), 2000);
        Check(Errno(cct) == Rdma.ETIMEDOUT, "a completion channel's 100 ms limit: " + Show(cct));
        DisposeEnds("a completion channel disposed while a task waits for its next event", cc, cc.WaitEventAsync(-1));
        close(q[0]);
        close(q[1]);

        // A CQ without a channel, polled by Task.Delay: its limit, a token, its Dispose.
        var cq = new CompletionQueue(emptyCq());
        var pt = Outcome(cq.PollAsync(1, 100), 2000);
        Check(Errno(pt) == Rdma.ETIMEDOUT, "a poll's 100 ms limit: " + Show(pt));
        var pc = new CancellationTokenSource(50);
        var pe = Outcome(cq.PollAsync(1, -1, pc.Token), 2000);
        Check(pe is TaskCanceledException, "a poll's token canceled: " + Show(pe));
        DisposeEnds("a CQ disposed while two tasks poll it (no limit, 10 s)", cq, cq.PollAsync(1, -1),
                    cq.PollAsync(1, 10000));
        // A CQ made on an endpoint: its dependent, disposed with it.
        var owner = new Endpoint(null, false, new IntPtr(0xe200), false);
        var dep = new CompletionQueue(owner, emptyCq(), null, false);
        DisposeEnds("an endpoint disposed while a task polls the CQ made on it", owner, dep.PollAsync(1, -1));
        Check(dep.IsDisposed, "the endpoint disposed: its CQ with it");
    }
}
