// The protection domain.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;

namespace RdmaVerbs
{
    /// <summary>A protection domain (ibv_alloc_pd). Disposing it first
    /// disposes its MRs, SRQs and the QPs made with it. One made on an
    /// endpoint is disposed with it, before its id.</summary>
    public sealed class ProtectionDomain : Resource
    {
        readonly IntPtr pd;

        /// <summary>A PD on the endpoint's device context, disposed with the
        /// endpoint (before its id).</summary>
        public ProtectionDomain(Endpoint ep) : this(ep, Rdma.ibv_alloc_pd(ep.Context), true)
        {
        }

        /// <summary>A PD on a device context (an ibv_context *), disposed on
        /// its own.</summary>
        public ProtectionDomain(IntPtr context) : this(null, Rdma.ibv_alloc_pd(context), true)
        {
        }

        internal ProtectionDomain(IntPtr pd, bool owned) : this(null, pd, owned)
        {
        }

        /// <summary>pd, made on ep's context (a dependent of ep), or on none.</summary>
        internal ProtectionDomain(Endpoint ep, IntPtr pd, bool owned) : base(owned)
        {
            this.pd = pd;
            Opened(ep);
        }

        public override IntPtr Handle {
            get { Check(); return pd; }
        }

        internal override void Destroy()
        {
            Rdma.ibv_dealloc_pd(pd);
        }
    }
}
