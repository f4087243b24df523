// Every function bound where Mono finds it: the name it looks up on
// librdmaverbs' handle is, for each of librdmaverbs' functions, the symbol
// of its version node; those a build lacks throw NotSupportedException,
// naming their release. Run by Test.
using System;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using RdmaVerbs;

static class VersionsTest
{
    static void Check(bool ok, string what)
    {
        Test.Check(ok, what);
    }

    [DllImport("libc.so.6")]
    static extern IntPtr dlopen(string file, int mode);

    [DllImport("libc.so.6")]
    static extern IntPtr dlsym(IntPtr handle, string name);

    [DllImport("libc.so.6")]
    static extern IntPtr dlvsym(IntPtr handle, string name, string version);

    [StructLayout(LayoutKind.Sequential)]
    struct DlInfo
    {
        public IntPtr fname, fbase, sname, saddr;
    }

    [DllImport("libc.so.6")]
    static extern int dladdr(IntPtr address, out DlInfo info);

    // {name: [node, since]} of an exports list: the build's (RDMAVERBS_EXPORTS), or
    // every row of the table (RDMAVERBS_ALL_EXPORTS).
    static System.Collections.Generic.SortedDictionary<string, string[]> Exports(string variable)
    {
        var out_ = new System.Collections.Generic.SortedDictionary<string, string[]>(StringComparer.Ordinal);
        var rows = File.ReadAllLines(Environment.GetEnvironmentVariable(variable))
            .Where(l => !l.StartsWith("#")).Skip(1).Select(l => l.Split('\t'));
        foreach (var r in rows)
            out_[r[0]] = new[] { r[1], r[2] };
        return out_;
    }

    static string Listed()
    {
        return string.Join(" ", Exports("RDMAVERBS_ALL_EXPORTS").Select(e => e.Key + "@" + e.Value[0]));
    }

    // Mono resolves a DllImport by name on the library's handle (dlsym):
    // for each of librdmaverbs' functions bound so, that is the symbol of
    // its version node (dlvsym), in librdmaverbs.so.1, under its name; a
    // function found by its version only (Native binds it with dlvsym) is a
    // non-default version, which dlsym does not find.
    internal static void Run()
    {
        IntPtr h = dlopen(Rdma.Library, 2);
        int bad = 0, v13 = 0, lacking = 0;
        var built = Exports("RDMAVERBS_EXPORTS");
        var every = Exports("RDMAVERBS_ALL_EXPORTS");
        foreach (var f in Rdma.Versions) {
            if (!built.ContainsKey(f.Item1)) {
                // A row the build lacks: its call throws NotSupportedException,
                // naming the release that brought it.
                lacking++;
                var m = typeof(Native).GetMethod(f.Item1);
                var args = m.GetParameters().Select(a => a.ParameterType.IsValueType ?
                    Activator.CreateInstance(a.ParameterType) : null).ToArray();
                try {
                    m.Invoke(null, args);
                    bad++;
                } catch (System.Reflection.TargetInvocationException e) {
                    if (!(e.InnerException is NotSupportedException) ||
                        !e.InnerException.Message.Contains(f.Item1 + " is not in") ||
                        !e.InnerException.Message.Contains("it came with rdma-core " + every[f.Item1][1] + ",")) {
                        bad++;
                        Console.WriteLine("csharp: " + f.Item1 + ", which the build lacks: " + e.InnerException);
                    }
                }
                continue;
            }
            IntPtr p = dlvsym(h, f.Item1, f.Item2), named = dlsym(h, f.Item1);
            DlInfo info;
            bool ok = p != IntPtr.Zero && named == (f.Item3 ? IntPtr.Zero : p) && dladdr(p, out info) != 0 &&
                Marshal.PtrToStringAnsi(info.sname) == f.Item1 &&
                Marshal.PtrToStringAnsi(info.fname).Contains("librdmaverbs.so");
            if (!ok) {
                bad++;
                Console.WriteLine("csharp: " + f.Item1 + "@" + f.Item2 + (f.Item3 ? " is not found by its version only" : " is not what the name finds"));
            }
            v13 += f.Item2 == "RDMAVERBS_1.3" && f.Item3 ? 1 : 0;
        }
        string bound = string.Join(" ", Rdma.Versions.OrderBy(f => f.Item1, StringComparer.Ordinal)
                                                     .Select(f => f.Item1 + "@" + f.Item2));
        Check(bad == 0 && bound == Listed() && v13 > 0,
              "the " + Rdma.Versions.Length + " functions of librdmaverbs (" + v13 +
              " at RDMAVERBS_1.3), each row of abi/exports.tsv at its node, in librdmaverbs.so.1: those bound" +
              " by name found so on its handle, those of 1.2 and later by their version only (dlsym finds none);" +
              " the " + lacking + " the build lacks throw NotSupportedException, naming their release");
    }
}
