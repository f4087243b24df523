// The object API on the recording provider (bindings/recorder/): the work
// requests it lays out, as the provider received them; completions reaped,
// every field; failures as RdmaVerbsException with their errno; the order
// objects are disposed in, whatever is disposed first; nothing left open
// after an exception; a bounded wait. Then the events kept for their ids
// (EventsTest), buffers kept alive (LifetimeTest), closing (CloseTest) and
// the Task waits (AsyncTest). The provider's objects are adopted (not
// made, never destroyed). Run by Test.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using RdmaVerbs;

static class ObjectsTest
{
    internal delegate IntPtr RecorderPtr();
    delegate void RecorderFail(int err);
    delegate IntPtr RecorderLast();
    internal delegate void RecorderReadLate();
    internal delegate int RecorderSent(byte[] out_, int max);
    delegate void RecorderLoopback();

    [DllImport("libc.so.6")]
    static extern IntPtr dlopen(string file, int mode);

    [DllImport("libc.so.6")]
    static extern IntPtr dlsym(IntPtr handle, string name);

    [DllImport("libc.so.6")]
    static extern int pipe(int[] fds);

    [DllImport("libc.so.6")]
    static extern long write(int fd, byte[] buf, ulong n);

    [DllImport("libc.so.6")]
    static extern int close(int fd);

    static IntPtr lib;
    internal static RecorderPtr recId, recQp, recSrq, recCq;
    static RecorderFail recFail;
    static RecorderLast recLast;
    internal static RecorderReadLate recReadLate;
    internal static RecorderSent recSent;
    static RecorderLoopback recLoopback;
    internal static readonly IntPtr FakePd = new IntPtr(0xfd000);   // never called: the MRs and SRQ are adopted

    static T Symbol<T>(string name) where T : class
    {
        IntPtr p = dlsym(lib, name);
        if (p == IntPtr.Zero)
            throw new EntryPointNotFoundException(name);
        return Marshal.GetDelegateForFunctionPointer(p, typeof(T)) as T;
    }

    static void Check(bool ok, string what)
    {
        Test.Check(ok, "objects: " + what);
    }

    static int ErrnoOf(Action a)
    {
        return Test.ErrnoOf(a);
    }

    static string Last()
    {
        return Marshal.PtrToStringAnsi(recLast());
    }

    static string Sge(MemoryRegion mr, long offset, int length)
    {
        return string.Format(" sge=0x{0:x}:0x{1:x}:0x{2:x}", mr.Address + (ulong)offset, length, mr.Lkey);
    }

    /// <summary>The work requests as the provider got them, and the completions.</summary>
    static void Posts()
    {
        recId();
        using (var pd = new ProtectionDomain(FakePd, false))
        using (var cq = new CompletionQueue(recCq()))
        using (var srq = new SharedReceiveQueue(pd, recSrq()))
        using (var ep = new Endpoint(null, false, recId(), false))
        using (var a = new MemoryRegion(pd, new byte[256], 0x11, false))
        using (var b = new MemoryRegion(pd, new byte[64], 0x22, false)) {
            var qp = new QueuePair(ep, pd, recQp(), 0x1100, cq, cq, srq);
            qp.PostSend(SendWork.SendWithImm(0x600, 0x0a0b0c0d, a.Sge(0, 16), a.Sge(16, 48)),
                        SendWork.CompareSwap(0x601, b.Sge(0, 8), 0xfedc000000003000, 0x80000066, 0x1111222233334444,
                                             0x5555666677778888).Flags(Rdma.IBV_SEND_FENCE),
                        SendWork.FetchAdd(0x602, b.Sge(8, 8), 0xfedc000000003008, 0x77, 0x8000000000000001).Unsignaled(),
                        SendWork.Write(0x603, 0xfedc000000004000, 0x88, a.Sge(64, 32)).Solicited(),
                        SendWork.Read(0x604, 0xfedc000000005000, 0x99, a.Sge(128, 128)));
            string want = "send_imm wr_id=0x600 flags=0x2 imm=0xd0c0b0a" + Sge(a, 0, 16) + Sge(a, 16, 48)
                + " | cas wr_id=0x601 flags=0x1 remote=0xfedc000000003000 rkey=0x80000066 compare=0x1111222233334444"
                + " swap=0x5555666677778888" + Sge(b, 0, 8)
                + " | fadd wr_id=0x602 flags=0x0 remote=0xfedc000000003008 rkey=0x77 add=0x8000000000000001" + Sge(b, 8, 8)
                + " | write wr_id=0x603 flags=0x6 remote=0xfedc000000004000 rkey=0x88" + Sge(a, 64, 32)
                + " | read wr_id=0x604 flags=0x2 remote=0xfedc000000005000 rkey=0x99" + Sge(a, 128, 128);
            string got = Last();
            Check(got == want, "PostSend of 5 (send with imm over 2 SGEs, cas, fetch-and-add, write, read): every field"
                  + " as the provider got it, the immediate data in network order" + (got == want ? "" : ": recorded '" + got + "'"));
            Check(qp.Held == 5, "the 5 posted work requests held (" + qp.Held + ")");
            srq.PostRecv(new RecvWork(0x620, a.Sge(0, 64)), new RecvWork(0x621, a.Sge(64, 64), b.Sge()));
            want = "srq_recv wr_id=0x620" + Sge(a, 0, 64) + " | srq_recv wr_id=0x621" + Sge(a, 64, 64) + Sge(b, 0, 64);
            Check(Last() == want && srq.Held == 2, "srq.PostRecv of 2: every field, both held");
            srq.PostRecv(new RecvWork(0x5000, a.Sge(0, 8)));
            var own = new QueuePair(ep, pd, recQp(), 0x1102, cq, cq, null);
            own.PostRecv(new RecvWork(0x630, a.Sge(0, 32)));
            Check(Last() == "recv wr_id=0x630" + Sge(a, 0, 32), "PostRecv: every field");
            own.PostRecv(new RecvWork(0x5002, a.Sge(32, 32)));
            recFail(Rdma.ENOMEM);
            Check(ErrnoOf(() => qp.PostSend(SendWork.Send(0x605, a.Sge()))) == Rdma.ENOMEM && qp.Held == 5,
                  "PostSend refused by the provider (ENOMEM): RdmaVerbsException ENOMEM, the refused one not held");
            recFail(Rdma.EIO);
            Check(ErrnoOf(() => cq.Poll(4)) == Rdma.EIO, "Poll failing (-1, errno EIO): RdmaVerbsException EIO");
            var wc = cq.Poll(4);
            var want3 = new[] {
                new Completion(0x5000, Rdma.IBV_WC_SUCCESS, Rdma.IBV_WC_RECV, 0x40, Rdma.IBV_WC_WITH_IMM, 0xd0c0b0a0, 0x1100,
                               0x100, 0x2200, 0x30, 0x4400, 1, 0x50),
                new Completion(0x5001, Rdma.IBV_WC_SUCCESS, Rdma.IBV_WC_COMP_SWAP, 0x41, 0, 0xd1c0b0a0, 0x1101,
                               0x101, 0x2201, 0x31, 0x4401, 2, 0x51),
                new Completion(0x5002, Rdma.IBV_WC_REM_ACCESS_ERR, Rdma.IBV_WC_FETCH_ADD, 0x42, 0, 0xd2c0b0a0, 0x1102,
                               0x102, 0x2202, 0x32, 0x4402, 3, 0x52),
            };
            Check(wc.SequenceEqual(want3) && !wc[2].Ok && wc[2].StatusText == "remote access error",
                  "Poll(4): the 3 completions, every field" + (wc.SequenceEqual(want3) ? "" : ": " + string.Join(", ", wc.Select(c => c.ToString()))));
            Check(qp.Held == 5 && srq.Held == 2 && own.Held == 0,
                  "reaped: the SRQ's receive 0x5000 (a receive of QP 0x1100) released, the other 2 held; QP 0x1102's receive"
                  + " 0x5002 (completed in error) released with the one before it; the sends held");
        }
    }

    /// <summary>Disposing in the order C needs, whatever is disposed first.</summary>
    static void Order()
    {
        var log = new List<string>();
        Resource.OnDestroy = r => log.Add(r.GetType().Name);
        int before = Resource.OpenCount;
        try {
            var pd = new ProtectionDomain(FakePd, false);
            var cq = new CompletionQueue(recCq());
            var srq = new SharedReceiveQueue(pd, recSrq());
            var mr = new MemoryRegion(pd, new byte[64], 0x11, false);
            var ep = new Endpoint(null, false, recId(), false);
            var qp = new QueuePair(ep, pd, recQp(), 0x1100, cq, cq, srq);
            Check(Resource.OpenCount == before + 6, "6 objects open");
            pd.Dispose();
            Check(log.SequenceEqual(new[] { "QueuePair", "MemoryRegion", "SharedReceiveQueue", "ProtectionDomain" })
                  && qp.IsDisposed && mr.IsDisposed && !cq.IsDisposed && !ep.IsDisposed && !mr.Pinned,
                  "disposing the PD first disposes the QP, the MR (unpinned), the SRQ, then the PD (" + string.Join(", ", log) + ")");
            string refused = "";
            try {
                qp.PostSend(SendWork.Send(1, mr.Sge()));
            } catch (ObjectDisposedException e) {
                refused = e.ObjectName;
            }
            Check(refused == "QueuePair", "a disposed QP refuses a post: ObjectDisposedException");
            pd.Dispose();
            ep.Dispose();
            cq.Dispose();
            Check(log.Count == 6 && Resource.OpenCount == before, "disposing twice does nothing; all disposed");
            // What is made on an endpoint (its context) is disposed before it.
            log.Clear();
            ep = new Endpoint(null, false, recId(), false);
            var channel = new CompletionChannel(ep, new IntPtr(0xcc000), -1, false);
            pd = new ProtectionDomain(ep, FakePd, false);
            cq = new CompletionQueue(ep, recCq(), channel, false);
            mr = new MemoryRegion(pd, new byte[64], 0x11, false);
            qp = new QueuePair(ep, pd, recQp(), 0x1100, cq, cq, null);
            ep.Dispose();
            Check(log.SequenceEqual(new[] { "QueuePair", "CompletionQueue", "MemoryRegion", "ProtectionDomain",
                                            "CompletionChannel", "Endpoint" }) && Resource.OpenCount == before,
                  "disposing an endpoint first disposes what was made on it, the last first: its QP, its CQ, its PD (its"
                  + " MR first), its completion channel, then the endpoint (" + string.Join(", ", log) + ")");
        } finally {
            Resource.OnDestroy = null;
        }
        try {
            using (var pd = new ProtectionDomain(FakePd, false))
            using (var mr = new MemoryRegion(pd, new byte[64], 0x11, false)) {
                if (mr.Length == 64)
                    throw new InvalidOperationException("mid-way");
            }
        } catch (InvalidOperationException e) {
            Check(e.Message == "mid-way" && Resource.OpenCount == before, "an exception mid-way leaves nothing open");
        }
        int errno = ErrnoOf(() => Endpoint.Resolve("192.0.2.1", 7471, 100).Dispose());
        Check(errno != 0 && Resource.OpenCount == before,
              "Endpoint.Resolve without RDMA: RdmaVerbsException (errno " + errno + "), nothing left open");
    }


    /// <summary>A bounded wait on a file descriptor: ETIMEDOUT, then ready.</summary>
    static void Waits()
    {
        var fds = new int[2];
        Check(pipe(fds) == 0, "pipe");
        var t0 = DateTime.UtcNow;
        int errno = ErrnoOf(() => Calls.Readable(fds[0], 100, "ibv_get_cq_event"));
        double ms = (DateTime.UtcNow - t0).TotalMilliseconds;
        Check(errno == Rdma.ETIMEDOUT && ms >= 95 && ms < 10000,
              "a wait of 100 ms on a silent descriptor: ETIMEDOUT after " + (int)ms + " ms");
        write(fds[1], new byte[] { 1 }, 1);
        Check(ErrnoOf(() => Calls.Readable(fds[0], 10000, "ibv_get_cq_event")) == 0, "a readable one: no wait");
        close(fds[0]);
        close(fds[1]);
        // A negative limit: none. The loopback provider completes a send
        // only once posted, which another thread does after 200 ms (between
        // two polls: it holds the CQ's lock, as Poll does).
        using (var pd = new ProtectionDomain(FakePd, false))
        using (var cq = new CompletionQueue(recCq()))
        using (var ep = new Endpoint(null, false, recId(), false))
        using (var mr = new MemoryRegion(pd, new byte[64], 0x11, false)) {
            recLoopback();   // after recorder_id, which ends it
            var qp = new QueuePair(ep, pd, recQp(), 0, cq, cq, null);
            var poster = new System.Threading.Thread(() => {
                System.Threading.Thread.Sleep(200);
                lock (cq)
                    qp.PostSend(SendWork.Send(0x77, mr.Sge(0, 8)));
            });
            poster.Start();
            var start = DateTime.UtcNow;
            Completion[] got = new Completion[0];
            errno = ErrnoOf(() => got = cq.Poll(1, -1));
            double waited = (DateTime.UtcNow - start).TotalMilliseconds;
            poster.Join();
            Check(errno == 0 && got.Length == 1 && got[0].WrId == 0x77 && waited >= 150,
                  "Poll(1, -1): no limit, the completion of a send posted 200 ms later (errno " + errno + ", "
                  + got.Length + " completions after " + (int)waited + " ms)");
        }
    }


    /// <summary>The README's first block is examples/Hello.cs, word for word.</summary>
    static void Readme()
    {
        string readme = System.IO.File.ReadAllText("bindings/csharp/README.md");
        string hello = System.IO.File.ReadAllText("bindings/csharp/examples/Hello.cs");
        int at = readme.IndexOf("```csharp\n");
        Check(at >= 0 && readme.IndexOf("```") == at && string.CompareOrdinal(readme, at + 10, hello + "```\n", 0, hello.Length + 4) == 0,
              "README.md opens with examples/Hello.cs, word for word");
    }

    public static void Run()
    {
        Readme();
        lib = dlopen(Environment.GetEnvironmentVariable("RDMAVERBS_RECORDER"), 2);
        recId = Symbol<RecorderPtr>("recorder_id");
        recQp = Symbol<RecorderPtr>("recorder_qp");
        recSrq = Symbol<RecorderPtr>("recorder_srq");
        recCq = Symbol<RecorderPtr>("recorder_cq");
        recFail = Symbol<RecorderFail>("recorder_fail");
        recLast = Symbol<RecorderLast>("recorder_last");
        recReadLate = Symbol<RecorderReadLate>("recorder_read_late");
        recSent = Symbol<RecorderSent>("recorder_sent");
        recLoopback = Symbol<RecorderLoopback>("recorder_loopback");
        Posts();
        Order();
        EventsTest.Run();
        Waits();
        LifetimeTest.Run();
        CloseTest.Run(lib);
        AsyncTest.Run(lib);
    }
}
