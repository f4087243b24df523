package org.rdmaverbs;

import com.sun.jna.Pointer;

/** A protection domain (ibv_alloc_pd). Closing it first closes what was
 * made on it (its MRs, SRQs and the QPs made with it), the last made
 * first, then deallocates it (ibv_dealloc_pd). One made on an endpoint is
 * closed with it, before its id. */
public final class ProtectionDomain extends Resource {
    private final Pointer pd;

    /** A PD on the endpoint's device context, closed with the endpoint
     * (before its id). */
    public ProtectionDomain(Endpoint ep) throws RdmaVerbsException {
        this(ep, RdmaVerbs.ibv_alloc_pd(ep.context()), true);
    }

    /** A PD on a device context (an ibv_context *), closed on its own. */
    public ProtectionDomain(Pointer context) throws RdmaVerbsException {
        this(null, RdmaVerbs.ibv_alloc_pd(context), true);
    }

    /** A PD this binding did not make (the tests' fake). */
    ProtectionDomain(Pointer pd, boolean owned) {
        this(null, pd, owned);
    }

    /** pd, made on ep's context (a dependent of ep), or on none. */
    ProtectionDomain(Endpoint ep, Pointer pd, boolean owned) {
        super(owned);
        this.pd = pd;
        opened(ep);
    }

    @Override
    public Pointer handle() {
        check();
        return pd;
    }

    @Override
    void destroy() throws RdmaVerbsException {
        RdmaVerbs.ibv_dealloc_pd(pd);
    }
}
