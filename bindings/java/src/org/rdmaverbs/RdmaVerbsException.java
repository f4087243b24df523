package org.rdmaverbs;

import com.sun.jna.Library;
import com.sun.jna.Native;

/** A function of the C API failed: its name, and the errno it left (read
 * right after the call, with JNA's Native.getLastError()). An IOException,
 * checked, as Java's I/O (sockets, channels) and its RDMA libraries (DiSNI)
 * throw: each method of RdmaVerbs that can fail declares it (those that
 * cannot declare nothing), and so does each method of the objects that
 * calls one that can. The object API throws it too, with the errno of what failed:
 * ETIMEDOUT for a bounded wait that ran out, an rdma_cm event's status for
 * a connection refused or unreachable (its message names the event). */
public class RdmaVerbsException extends java.io.IOException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    interface Libc extends Library {
        String strerror(int errnum);
    }

    private static final Libc LIBC = Native.load("c", Libc.class);

    /** A failure of function: "function: strerror (ENAME, errno N)". */
    public RdmaVerbsException(String function, int errno) {
        super(function + ": " + LIBC.strerror(errno) + " (" + errnoName(errno) + "errno " + errno + ")");
        this.errno = errno;
    }

    /** A failure with what was seen: "function: detail: strerror (ENAME, errno N)". */
    public RdmaVerbsException(String function, int errno, String detail) {
        super(function + ": " + detail + ": " + LIBC.strerror(errno) + " (" + errnoName(errno) + "errno " + errno + ")");
        this.errno = errno;
    }

    /** The errno's Linux name and a comma ("ECONNREFUSED, "), or nothing
     * for one not named here. */
    static String errnoName(int errno) {
        String n = name(errno);
        return n == null ? "" : n + ", ";
    }

    private static String name(int errno) {
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

    /** The errno of the failed call. */
    public int errno() {
        return errno;
    }
}
