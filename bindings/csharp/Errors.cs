// rdmaverbs: the one exception of the C API and of the object API
// (RdmaVerbs.cs's functions and Objects/ throw it): the function that
// failed and the errno it left, with its name.
using System;

namespace RdmaVerbs
{
    /// <summary>A function of the C API failed: its name and errno. An
    /// IOException, as .NET's I/O errors are. The object API throws it too,
    /// with the errno of what failed: ETIMEDOUT for a bounded wait that ran
    /// out, an rdma_cm event's for a connection refused or unreachable (the
    /// message names the event).</summary>
    public class RdmaVerbsException : System.IO.IOException
    {
        /// <summary>The errno the failed call left.</summary>
        public int Errno { get; private set; }

        /// <summary>The function that failed.</summary>
        public string Function { get; private set; }

        /// <summary>A failure of function: "function: strerror (ENAME, errno N)".</summary>
        public RdmaVerbsException(string function, int errno)
            : base(function + ": " + Rdma.StrError(errno) + " (" + ErrnoName(errno) + "errno " + errno + ")")
        {
            Function = function;
            Errno = errno;
        }

        /// <summary>A failure with what was seen: "function: detail: strerror (ENAME, errno N)".</summary>
        public RdmaVerbsException(string function, int errno, string detail)
            : base(function + ": " + detail + ": " + Rdma.StrError(errno) + " (" + ErrnoName(errno) + "errno " + errno + ")")
        {
            Function = function;
            Errno = errno;
        }

        /// <summary>The errno's Linux name and a comma ("ECONNREFUSED, "), or
        /// nothing for one not named here.</summary>
        internal static string ErrnoName(int errno)
        {
            var n = Name(errno);
            return n == null ? "" : n + ", ";
        }

        static string Name(int errno)
        {
            switch (errno) {
                case 1: return "EPERM";
                case 2: return "ENOENT";
                case 3: return "ESRCH";
                case 4: return "EINTR";
                case 5: return "EIO";
                case 6: return "ENXIO";
                case 7: return "E2BIG";
                case 9: return "EBADF";
                case 11: return "EAGAIN";
                case 12: return "ENOMEM";
                case 13: return "EACCES";
                case 14: return "EFAULT";
                case 16: return "EBUSY";
                case 17: return "EEXIST";
                case 19: return "ENODEV";
                case 22: return "EINVAL";
                case 24: return "EMFILE";
                case 28: return "ENOSPC";
                case 34: return "ERANGE";
                case 38: return "ENOSYS";
                case 61: return "ENODATA";
                case 71: return "EPROTO";
                case 75: return "EOVERFLOW";
                case 95: return "EOPNOTSUPP";
                case 98: return "EADDRINUSE";
                case 99: return "EADDRNOTAVAIL";
                case 100: return "ENETDOWN";
                case 101: return "ENETUNREACH";
                case 103: return "ECONNABORTED";
                case 104: return "ECONNRESET";
                case 105: return "ENOBUFS";
                case 106: return "EISCONN";
                case 107: return "ENOTCONN";
                case 110: return "ETIMEDOUT";
                case 111: return "ECONNREFUSED";
                case 112: return "EHOSTDOWN";
                case 113: return "EHOSTUNREACH";
                case 114: return "EALREADY";
                case 115: return "EINPROGRESS";
                case 125: return "ECANCELED";
                default: return null;
            }
        }
    }
}
