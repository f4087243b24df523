// Disposing ends every wait on the object and on its dependents at once,
// from another thread, with a time limit and without: RdmaVerbsException
// EBADF, its message saying closed. On the event channel's stand-in (a pipe
// that never becomes readable), the recorder's CQ whose polls find nothing,
// and a completion channel of a pipe.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Threading;
using RdmaVerbs;

static class CloseTest
{
    delegate IntPtr RecorderPtr();

    [DllImport("libc.so.6")]
    static extern IntPtr dlsym(IntPtr handle, string name);

    [DllImport("libc.so.6")]
    static extern int pipe(int[] fds);

    [DllImport("libc.so.6")]
    static extern int close(int fd);

    static void Check(bool ok, string what)
    {
        Test.Check(ok, "close: " + what);
    }

    /// <summary>A wait running in a thread of its own, and what ended it.</summary>
    sealed class Waiter
    {
        internal Exception Ended;
        internal readonly Thread Thread;
        internal long EndedAt;

        internal Waiter(Action wait)
        {
            Thread = new Thread(() => {
                try {
                    wait();
                } catch (Exception e) {
                    Ended = e;
                }
                EndedAt = Stopwatch.GetTimestamp();
            });
            Thread.IsBackground = true;   // a wait a Dispose did not end must not keep the process
            Thread.Start();
        }

        /// <summary>Whether it ended within 5 s with EBADF and "closed", within
        /// 2 s of closedAt.</summary>
        internal bool EndedClosed(long closedAt)
        {
            Thread.Join(5000);
            var e = Ended as RdmaVerbsException;
            return !Thread.IsAlive && e != null && e.Errno == 9 && e.Message.Contains("closed") && e.Message.Contains("(EBADF, errno 9)")
                && (EndedAt - closedAt) * 1000 / Stopwatch.Frequency < 2000;
        }

        internal string What()
        {
            return Thread.IsAlive ? "still waiting" : Ended == null ? "ended with no error" : Ended.Message;
        }
    }

    /// <summary>Starts the waits, lets them block, disposes r; each must end
    /// closed.</summary>
    static void DisposeEnds(string what, IDisposable r, params Action[] waits)
    {
        var ws = new List<Waiter>();
        foreach (var w in waits)
            ws.Add(new Waiter(w));
        Thread.Sleep(200);
        bool blocked = ws.TrueForAll(w => w.Thread.IsAlive);
        long closedAt = Stopwatch.GetTimestamp();
        r.Dispose();
        foreach (var w in ws)
            Check(blocked && w.EndedClosed(closedAt), what + ": " + (blocked ? w.What() : "did not wait"));
    }

    static int[] Pipe()
    {
        var fds = new int[2];
        Check(pipe(fds) == 0, "pipe");
        return fds;
    }

    public static void Run(IntPtr lib)
    {
        var emptyCq = (RecorderPtr)Marshal.GetDelegateForFunctionPointer(dlsym(lib, "recorder_empty_cq"),
                                                                          typeof(RecorderPtr));
        var p = Pipe();
        var c = new EventsTest.Script { Block = p[0] };
        var ch = new EventChannel(c);
        var a = new Endpoint(ch, false, new IntPtr(0xa000), false);
        var b = new Endpoint(ch, false, new IntPtr(0xb000), false);
        DisposeEnds("an endpoint disposed while two threads wait for its event (no limit, 10 s)", a,
                    () => a.AwaitDisconnect(-1), () => a.AwaitDisconnect(10000));
        var other = new Waiter(() => b.AwaitDisconnect(-1));
        var c2 = new Endpoint(ch, false, new IntPtr(0xc000), false);
        DisposeEnds("an endpoint disposed while another thread waits for another's event", c2,
                    () => c2.AwaitDisconnect(-1));
        Check(other.Thread.IsAlive, "the wait for another endpoint's event goes on");
        var l = new Listener(ch, new IntPtr(0xd000), false);
        DisposeEnds("a listener disposed while two threads wait for a connect request (no limit, 10 s)", l,
                    () => l.GetRequest(-1), () => l.GetRequest(10000));
        long closedAt = Stopwatch.GetTimestamp();
        DisposeEnds("the channel disposed while a thread waits for any event", ch, () => ch.Next(-1));
        Check(other.EndedClosed(closedAt), "the channel disposed: the wait for its endpoint's event too: " + other.What());
        close(p[0]);
        close(p[1]);

        // A CQ whose polls find nothing, polled by two threads.
        var cq = new CompletionQueue(emptyCq());
        DisposeEnds("a CQ disposed while two threads poll it for completions (no limit, 10 s)", cq,
                    () => cq.Poll(1, -1), () => cq.Poll(1, 10000));
        // A CQ made on an endpoint: its dependent, disposed with it.
        var e = new Endpoint(null, false, new IntPtr(0xe000), false);
        var dep = new CompletionQueue(e, emptyCq(), null, false);
        DisposeEnds("an endpoint disposed while a thread polls the CQ made on it", e, () => dep.Poll(1, -1));

        // A completion channel (a pipe), a CQ on it awaited by two threads.
        var q = Pipe();
        var cc = new CompletionChannel(null, new IntPtr(0xcc00), q[0], false);
        var on = new CompletionQueue(null, emptyCq(), cc, false);
        DisposeEnds("a CQ disposed while two threads wait for its event (no limit, 10 s)", on,
                    () => on.WaitEvent(-1), () => on.WaitEvent(10000));
        DisposeEnds("a completion channel disposed while a thread waits for its next event", cc,
                    () => cc.WaitEvent(-1));
        close(q[0]);
        close(q[1]);

        // Calls on a disposed object say so.
        var gone = new Endpoint(null, false, new IntPtr(0xf000), false);
        gone.Dispose();
        string msg = "";
        try {
            gone.PostSend(SendWork.Send(1));
        } catch (ObjectDisposedException x) {
            msg = x.Message;
        }
        Check(msg.Contains("Endpoint") && msg.Contains("disposed"), "a post on a disposed endpoint: " + msg);
        // A library that does not load says which, where, and what provides it.
        var missing = Rdma.Missing("/nonexistent/librdmaverbs.so.1", "cannot open shared object file: No such file or directory");
        Check(missing.StartsWith("/nonexistent/librdmaverbs.so.1 could not be loaded, looked for by the dynamic loader")
              && missing.Contains("No such file") && missing.Contains("librdmaverbs1")
              && missing.Contains("RDMAVERBS_LIBRARY"), "a library that does not load: " + missing);
        // One set of defaults: every QP made signals every send.
        Check(new QpInit(null, null).SignalAll, "QpInit: SignalAll (sq_sig_all 1) by default");
    }
}
