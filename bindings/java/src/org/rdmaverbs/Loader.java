package org.rdmaverbs;

import com.sun.jna.Library;
import com.sun.jna.Native;

/** Loads the libraries: by their sonames, through the dynamic loader;
 * RDMAVERBS_LIBRARY names another copy of librdmaverbs. */
final class Loader {
    private Loader() {}

    /** lib{which}.so.1 (rdmaverbs, rdmacm, ibverbs). */
    static <T extends Library> T load(String which, Class<T> iface) {
        String name = "lib" + which + ".so.1";
        if (which.equals("rdmaverbs")) {
            String env = System.getenv("RDMAVERBS_LIBRARY");
            name = env != null && !env.isEmpty() ? env : name;
        }
        return Native.load(name, iface);
    }
}
