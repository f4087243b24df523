package org.rdmaverbs;

import com.sun.jna.Pointer;

/** A protection domain (ibv_alloc_pd). Closing it first closes what was
 * made on it (its MRs, SRQs and the QPs made with it), the last made
 * first, then deallocates it (ibv_dealloc_pd). */
public final class ProtectionDomain extends Resource {
    private final Pointer pd;

    /** A PD on the endpoint's device context. */
    public ProtectionDomain(Endpoint ep) {
        this(ep.context());
    }

    /** A PD on a device context (an ibv_context *). */
    public ProtectionDomain(Pointer context) {
        super(true);
        pd = RdmaVerbs.ibv_alloc_pd(context);
        opened();
    }

    /** A PD this binding did not make (the tests' fake). */
    ProtectionDomain(Pointer pd, boolean owned) {
        super(owned);
        this.pd = pd;
        opened();
    }

    @Override
    public Pointer handle() {
        check();
        return pd;
    }

    @Override
    void destroy() {
        RdmaVerbs.ibv_dealloc_pd(pd);
    }
}
