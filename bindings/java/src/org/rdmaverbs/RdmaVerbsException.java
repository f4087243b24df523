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

    public RdmaVerbsException(String function, int errno) {
        super(function + ": " + LIBC.strerror(errno) + " (errno " + errno + ")");
        this.errno = errno;
    }

    /** A failure with what was seen: "function: detail: strerror (errno N)". */
    public RdmaVerbsException(String function, int errno, String detail) {
        super(function + ": " + detail + ": " + LIBC.strerror(errno) + " (errno " + errno + ")");
        this.errno = errno;
    }

    /** The errno of the failed call. */
    public int errno() {
        return errno;
    }
}
