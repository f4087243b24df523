// rdmaverbs: librdmacm's inline <rdma/rdma_verbs.h> functions (and
// rdma_get_local_addr, rdma_get_peer_addr) from C#, through
// librdmaverbs.so.1, with P/Invoke (Mono).
//
// Every function is a static method of Rdma with its C name and C types
// (Api.cs, generated from the library's table); a failure (-1, or NULL)
// throws RdmaVerbsException (Errors.cs) carrying the errno the call left. Native has the
// C functions themselves: P/Invoke declarations (SetLastError: the runtime
// saves errno right after the call), and for librdmaverbs' functions that
// are found by their version only (those of verbs.h at RDMAVERBS_1.3 and the
// address functions at 1.2, non-default versions, which a DllImport's
// look-up by name does not find) a method that binds the function with
// dlvsym as a delegate and reads errno from the thread's errno right after
// the call (Mono does not save it for a delegate): Native.LastErrno. A
// program that calls Native's P/Invoke declarations directly with
// RDMAVERBS_LIBRARY set calls Rdma.Init() first, in a method other than the
// one that calls Native (Mono resolves a DllImport when it compiles the
// method that calls it). The structs and constants are in Api.cs,
// checked against the system headers (mono RdmaVerbsTest.exe --layout).
//
// The libraries: librdmaverbs.so.1 and librdmacm.so.1, found by the dynamic
// loader; RDMAVERBS_LIBRARY names another copy of librdmaverbs, loaded
// before the first call (its soname then answers the DllImport).
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace RdmaVerbs
{
    public static partial class Native
    {
        [DllImport("libc.so.6")]
        static extern IntPtr dlvsym(IntPtr handle, string name, string version);

        [DllImport("libc.so.6")]
        static extern IntPtr __errno_location();

        [ThreadStatic]
        static IntPtr errnoAt;

        /// <summary>The errno that the last call of this thread to a function
        /// found by its version left (Marshal.GetLastWin32Error() for the
        /// others).</summary>
        [ThreadStatic]
        public static int LastErrno;

        /// <summary>This thread's errno, where it is.</summary>
        static IntPtr ErrnoAt()
        {
            if (errnoAt == IntPtr.Zero)
                errnoAt = __errno_location();
            return errnoAt;
        }

        /// <summary>name@version in librdmaverbs, as the delegate T.</summary>
        /// <summary>name@version of the library, as a delegate. One that a later
        /// rdma-core release brought (since, else 0) is missing from a library built
        /// against an older one's headers: its call then throws
        /// NotSupportedException saying so.</summary>
        internal static T Bind<T>(string name, string version, int since = 0) where T : class
        {
            Rdma.Init();
            IntPtr p = dlvsym(Rdma.Handle, name, version);
            if (p == IntPtr.Zero && since > 0)
                throw new NotSupportedException(name + " is not in " + Rdma.Library + ": it came with rdma-core " +
                    since + ", and this build of rdmaverbs was made against an older rdma-core's headers " +
                    "(rebuild it against rdma-core " + since + " or later)");
            if (p == IntPtr.Zero)
                throw new EntryPointNotFoundException(name + "@" + version + " in " + Rdma.Library);
            return (T)(object)Marshal.GetDelegateForFunctionPointer(p, typeof(T));
        }
    }

    public static partial class Rdma
    {
        const int RTLD_NOW = 2, RTLD_GLOBAL = 0x100;

        [DllImport("libc.so.6")]
        static extern IntPtr dlopen(string file, int mode);

        [DllImport("libc.so.6")]
        static extern IntPtr dlerror();

        [DllImport("libc.so.6")]
        static extern IntPtr strerror(int errnum);

        /// <summary>The librdmaverbs the calls go to: RDMAVERBS_LIBRARY, or the soname.</summary>
        public static readonly string Library =
            string.IsNullOrEmpty(Environment.GetEnvironmentVariable("RDMAVERBS_LIBRARY"))
                ? "librdmaverbs.so.1" : Environment.GetEnvironmentVariable("RDMAVERBS_LIBRARY");

        static volatile bool loaded;

        /// <summary>Library's handle, once Init has loaded it.</summary>
        internal static IntPtr Handle;

        /// <summary>Loads Library, once; every function of Rdma calls it first.</summary>
        public static void Init()
        {
            if (loaded)
                return;
            lock (typeof(Rdma)) {
                if (!loaded) {
                    Handle = dlopen(Library, RTLD_NOW | RTLD_GLOBAL);
                    if (Handle == IntPtr.Zero)
                        throw new DllNotFoundException(Missing(Library, Marshal.PtrToStringAnsi(dlerror())));
                }
                loaded = true;
            }
        }

        /// <summary>What a library that does not load is told with: which,
        /// where it was looked for (RDMAVERBS_LIBRARY's path, or the dynamic
        /// loader's places), dlopen's words, and what provides it.</summary>
        internal static string Missing(string library, string dlerror)
        {
            var env = Environment.GetEnvironmentVariable("RDMAVERBS_LIBRARY");
            var where = !string.IsNullOrEmpty(env) && library == env
                ? "at RDMAVERBS_LIBRARY=" + env
                : "by the dynamic loader (LD_LIBRARY_PATH=" + Environment.GetEnvironmentVariable("LD_LIBRARY_PATH")
                  + ", /etc/ld.so.cache, /lib, /usr/lib)";
            return library + " could not be loaded, looked for " + where + ": " + dlerror
                + "; install the package librdmaverbs1, or set RDMAVERBS_LIBRARY to the library's path"
                + " (a built tree's build/lib/librdmaverbs.so.1)";
        }

        /// <summary>strerror of an errno.</summary>
        public static string StrError(int errno)
        {
            return Marshal.PtrToStringAnsi(strerror(errno));
        }

        /// <summary>This binding's layout lines, as the C layout program prints
        /// the system headers': "STRUCT sizeof N", "STRUCT.FIELD offset N",
        /// "NAME value N".</summary>
        public static IEnumerable<string> Layout()
        {
            foreach (var s in Structs) {
                yield return s.Item1.Name + " sizeof " + Marshal.SizeOf(s.Item1);
                foreach (var f in s.Item2)
                    yield return s.Item1.Name + "." + f + " offset " + Marshal.OffsetOf(s.Item1, f);
            }
            foreach (var c in Constants)
                yield return c + " value " + typeof(Rdma).GetField(c).GetValue(null);
        }
    }
}
