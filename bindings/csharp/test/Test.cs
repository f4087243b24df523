// The C# binding on a machine without RDMA: every function wrapped, the
// refused inputs thrown as RdmaVerbsException with their errno, the raw
// declarations' results as C's, RDMAVERBS_LIBRARY honoured; then every
// function bound where Mono finds it (VersionsTest), the raw data path on
// the recording provider (RawPostsTest) and the objects (ObjectsTest and
// what it runs). Exits 1 on a failure. With --layout: prints the binding's
// layout lines instead.
using System;
using System.IO;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text.RegularExpressions;
using RdmaVerbs;

static class Test
{
    static int failures;

    internal static void Check(bool ok, string what)
    {
        Console.WriteLine("csharp: " + (ok ? "ok" : "FAIL") + ": " + what);
        if (!ok)
            failures++;
    }

    internal static int ErrnoOf(Action a)
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

    // Native's functions, in a method of their own, compiled after Rdma.Init.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Raw()
    {
        int r = Native.rdma_post_send(IntPtr.Zero, IntPtr.Zero, IntPtr.Zero, 0, IntPtr.Zero, 0);
        Check(r == -1 && Marshal.GetLastWin32Error() == Rdma.EINVAL, "raw rdma_post_send: -1, errno EINVAL");
        Check(Native.rdma_get_peer_addr(IntPtr.Zero) == IntPtr.Zero && Native.LastErrno == Rdma.EINVAL,
              "raw rdma_get_peer_addr: NULL, errno EINVAL");
    }

    static int Main(string[] args)
    {
        if (args.Length == 1 && args[0] == "--layout") {
            foreach (var line in Rdma.Layout())
                Console.WriteLine(line);
            return 0;
        }
        int wrapped = typeof(Rdma).GetMethods().Count(m => m.Name.StartsWith("rdma_") || m.Name.Contains("ibv_"));
        int native = typeof(Native).GetMethods().Count(m => m.Name.StartsWith("rdma_") || m.Name.Contains("ibv_"));
        Check(wrapped == native && native == typeof(Native).GetMethods().Count(m => m.IsStatic && m.DeclaringType == typeof(Native)) &&
              wrapped > Rdma.Versions.Length,
              wrapped + " functions bound, each wrapped (" + native + " declared)");
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
        RawPostsTest.Vectored();
        VersionsTest.Run();
        RawPostsTest.Verbs13();
        RawPostsTest.SgeLists();
        RawPostsTest.EmptyArrays();
        string env = Environment.GetEnvironmentVariable("RDMAVERBS_LIBRARY");
        if (!string.IsNullOrEmpty(env))
            Check(File.ReadAllText("/proc/self/maps").Contains(Marshal.PtrToStringAnsi(realpath(env, IntPtr.Zero))),
                  "RDMAVERBS_LIBRARY's copy is the one mapped");
        ObjectsTest.Run();
        if (failures > 0)
            return 1;
        Console.WriteLine("csharp: all checks passed");
        return 0;
    }
}
