package org.rdmaverbs;

import com.sun.jna.Library;
import com.sun.jna.Native;

/** A function of the C API failed: its name, and the errno it left (read
 * right after the call, with JNA's Native.getLastError()). */
public class RdmaVerbsException extends RuntimeException {
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

    /** The errno of the failed call. */
    public int errno() {
        return errno;
    }
}
