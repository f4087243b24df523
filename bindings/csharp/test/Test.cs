// The C# binding on a machine without RDMA: every function bound, the
// refused inputs thrown as RdmaVerbsException with their errno, the raw
// declarations' results as C's, RDMAVERBS_LIBRARY honoured, the vectored
// posts checked SGE by SGE on the recording provider (bindings/recorder.c,
// RDMAVERBS_RECORDER), the ports in both orders, the completion statuses.
// Exits 1 on a failure. With --layout: prints the binding's layout lines
// instead.
using System;
using System.IO;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using RdmaVerbs;

static class Test
{
    static int failures;

    static void Check(bool ok, string what)
    {
        Console.WriteLine("csharp: " + (ok ? "ok" : "FAIL") + ": " + what);
        if (!ok)
            failures++;
    }

    static int ErrnoOf(Action a)
    {
        try {
            a();
            return 0;
        } catch (RdmaVerbsException e) {
            return e.Errno;
        }
    }

    [DllImport("libc.so.6")]
    static extern IntPtr realpath(string path, IntPtr resolved);

    [DllImport("libc.so.6")]
    static extern IntPtr dlopen(string file, int mode);

    [DllImport("libc.so.6")]
    static extern IntPtr dlsym(IntPtr handle, string name);

    // The recording provider: a fake id whose QP records each work request.
    delegate IntPtr RecorderId();
    delegate int RecorderPosts();
    delegate IntPtr RecorderLast();

    static T Symbol<T>(IntPtr lib, string name) where T : class
    {
        IntPtr p = dlsym(lib, name);
        if (p == IntPtr.Zero)
            throw new EntryPointNotFoundException(name);
        return Marshal.GetDelegateForFunctionPointer(p, typeof(T)) as T;
    }

    static ibv_sge Sge(ulong addr, uint length, uint lkey)
    {
        return new ibv_sge { addr = addr, length = length, lkey = lkey };
    }

    const string SA = " sge=0x1000:0x10:0x11";
    const string SB = " sge=0x8000000000002000:0x80000030:0x80000022";
    const string SC = " sge=0x3000:0x40:0x33";

    static void Vectored()
    {
        IntPtr lib = dlopen(Environment.GetEnvironmentVariable("RDMAVERBS_RECORDER"), 2 /* RTLD_NOW */);
        Check(lib != IntPtr.Zero, "RDMAVERBS_RECORDER loads");
        var recId = Symbol<RecorderId>(lib, "recorder_id");
        var posts = Symbol<RecorderPosts>(lib, "recorder_posts");
        var last = Symbol<RecorderLast>(lib, "recorder_last");
        Action<int, string, string> recorded = (r, want, what) => {
            string got = Marshal.PtrToStringAnsi(last());
            Check(r == 0 && got == want, what + (got == want ? "" : ": recorded '" + got + "'"));
        };
        IntPtr id = recId();
        ibv_sge a = Sge(0x1000, 0x10, 0x11), b = Sge(0x8000000000002000, 0x80000030, 0x80000022),
            c = Sge(0x3000, 0x40, 0x33);
        var sgl = new[] { a, b, c };
        recorded(Rdma.rdma_post_sendv(id, new IntPtr(0x300), sgl, 3, Rdma.IBV_SEND_SIGNALED),
                 "send wr_id=0x300 flags=0x2" + SA + SB + SC, "rdma_post_sendv(new[] { a, b, c }, 3): every SGE");
        recorded(Rdma.rdma_post_recvv(id, new IntPtr(0x301), sgl, 2),
                 "recv wr_id=0x301" + SA + SB, "rdma_post_recvv(new[] { a, b, c }, 2): the first two SGEs");
        recorded(Rdma.rdma_post_readv(id, new IntPtr(0x302), new[] { b, c }, 2, 0, 0xfedc000000001000, 0x80000044),
                 "read wr_id=0x302 flags=0x0 remote=0xfedc000000001000 rkey=0x80000044" + SB + SC,
                 "rdma_post_readv(new[] { b, c }, 2): every SGE, the remote address and key");
        recorded(Rdma.rdma_post_writev(id, new IntPtr(0x303), sgl, 3, Rdma.IBV_SEND_SIGNALED | Rdma.IBV_SEND_FENCE,
                                       0xfedc000000002000, 0x55),
                 "write wr_id=0x303 flags=0x3 remote=0xfedc000000002000 rkey=0x55" + SA + SB + SC,
                 "rdma_post_writev(new[] { a, b, c }, 3): every SGE");
        Check(posts() == 4, "4 work requests posted");
        string refused = "no exception";
        try {
            Rdma.rdma_post_sendv(id, new IntPtr(0x304), sgl, 4, 0);
        } catch (ArgumentException e) {
            refused = e.Message.Split('\n')[0];
        }
        Check(refused == "rdma_post_sendv: nsge is 4 but sgl has 3 elements" && posts() == 4,
              "rdma_post_sendv(3 SGEs, 4): ArgumentException, nothing posted (" + refused + ")");
        Check(Rdma.src_port(id) == 18577 && Rdma.dst_port(id) == 50000,
              "src_port, dst_port: the ports in host order, 18577 and 50000");
        // x86-64: the network-order value as a little-endian integer
        Check(Rdma.rdma_get_src_port(id) == 0x9148 && Rdma.rdma_get_dst_port(id) == 0x50c3,
              "rdma_get_src_port, rdma_get_dst_port: network order, 0x9148 and 0x50c3");
        Check(Rdma.ibv_wc_status_str(Rdma.IBV_WC_LOC_PROT_ERR) == "local protection error" &&
              Rdma.ibv_wc_status_str(Rdma.IBV_WC_SUCCESS) == "success" && Rdma.IBV_WC_TM_RNDV_INCOMPLETE == 23,
              "ibv_wc_status_str: 'local protection error', 'success'; IBV_WC_TM_RNDV_INCOMPLETE is 23");
    }

    // Native's functions, in a method of their own, compiled after Rdma.Init.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Raw()
    {
        int r = Native.rdma_post_send(IntPtr.Zero, IntPtr.Zero, IntPtr.Zero, 0, IntPtr.Zero, 0);
        Check(r == -1 && Marshal.GetLastWin32Error() == Rdma.EINVAL, "raw rdma_post_send: -1, errno EINVAL");
        Check(Native.rdma_get_peer_addr(IntPtr.Zero) == IntPtr.Zero && Marshal.GetLastWin32Error() == Rdma.EINVAL,
              "raw rdma_get_peer_addr: NULL, errno EINVAL");
    }

    static int Main(string[] args)
    {
        if (args.Length == 1 && args[0] == "--layout") {
            foreach (var line in Rdma.Layout())
                Console.WriteLine(line);
            return 0;
        }
        int wrapped = typeof(Rdma).GetMethods().Count(m => m.Name.StartsWith("rdma_") || m.Name.StartsWith("ibv_"));
        int native = typeof(Native).GetMethods().Count(m => m.Name.StartsWith("rdma_") || m.Name.StartsWith("ibv_"));
        Check(wrapped == 32 && native == 32, "32 functions bound (" + wrapped + ", " + native + ")");
        var wc = new ibv_wc();
        Check(ErrnoOf(() => Rdma.rdma_post_send(IntPtr.Zero, IntPtr.Zero, IntPtr.Zero, 0, IntPtr.Zero, 0)) == Rdma.EINVAL,
              "rdma_post_send(NULL, ...): RdmaVerbsException, errno EINVAL");
        Check(ErrnoOf(() => Rdma.rdma_get_send_comp_timeout(IntPtr.Zero, ref wc, 0)) == Rdma.EINVAL,
              "rdma_get_send_comp_timeout(NULL, ...): EINVAL");
        Check(ErrnoOf(() => Rdma.rdma_get_local_addr(IntPtr.Zero)) == Rdma.EINVAL,
              "rdma_get_local_addr(NULL): EINVAL");
        Check(ErrnoOf(() => Rdma.rdma_post_sendv(IntPtr.Zero, IntPtr.Zero, new ibv_sge[2], 2, 0)) == Rdma.EINVAL,
              "rdma_post_sendv(NULL, ..., sgl[2], 2, 0): EINVAL");
        Check(ErrnoOf(() => Rdma.rdma_seterrno(Rdma.EIO)) == Rdma.EIO && Rdma.rdma_seterrno(0) == 0,
              "rdma_seterrno(EIO): EIO; rdma_seterrno(0): 0");
        Rdma.Init();
        Raw();
        Check(Marshal.SizeOf(typeof(ibv_wc)) == 48, "sizeof(struct ibv_wc) is 48");
        Vectored();
        string env = Environment.GetEnvironmentVariable("RDMAVERBS_LIBRARY");
        if (!string.IsNullOrEmpty(env))
            Check(File.ReadAllText("/proc/self/maps").Contains(Marshal.PtrToStringAnsi(realpath(env, IntPtr.Zero))),
                  "RDMAVERBS_LIBRARY's copy is the one mapped");
        if (failures > 0)
            return 1;
        Console.WriteLine("csharp: all checks passed");
        return 0;
    }
}
