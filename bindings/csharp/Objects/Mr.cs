// Memory regions over pinned byte arrays.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;

namespace RdmaVerbs
{
    /// <summary>A registered buffer (ibv_reg_mr_iova2): a byte array, pinned
    /// (never moved nor collected) for as long as the MR is open and as each
    /// work request posted with it is not reaped. Its bytes are Buffer's.
    /// Disposing it deregisters it; the array is unpinned once no posted
    /// work request uses it.</summary>
    public sealed class MemoryRegion : Resource
    {
        readonly byte[] buffer;
        readonly object pinLock = new object();
        GCHandle pin;
        int pins = 1;   // the MR's own, then one per posted SGE
        readonly ulong address;
        readonly IntPtr mr;
        readonly uint lkey, rkey;

        /// <summary>Registers buffer on pd with access (IBV_ACCESS_* flags; 0
        /// for a buffer only sent from), its address as the iova.</summary>
        public MemoryRegion(ProtectionDomain pd, byte[] buffer, int access) : base(true)
        {
            IntPtr p = pd.Handle;
            this.buffer = buffer;
            pin = GCHandle.Alloc(buffer, GCHandleType.Pinned);
            address = (ulong)pin.AddrOfPinnedObject().ToInt64();
            try {
                mr = Rdma.ibv_reg_mr_iova2(p, pin.AddrOfPinnedObject(), (ulong)buffer.Length, address, (uint)access);
            } catch (Exception) {
                pin.Free();
                throw;
            }
            var m = Marshal.PtrToStructure<ibv_mr>(mr);
            lkey = m.lkey;
            rkey = m.rkey;
            Opened(pd);
        }

        /// <summary>A buffer as if registered with lkey (the tests' fake MR).</summary>
        internal MemoryRegion(ProtectionDomain pd, byte[] buffer, uint lkey, bool owned) : base(owned)
        {
            this.buffer = buffer;
            pin = GCHandle.Alloc(buffer, GCHandleType.Pinned);
            address = (ulong)pin.AddrOfPinnedObject().ToInt64();
            this.lkey = rkey = lkey;
            Opened(pd);
        }

        public override IntPtr Handle {
            get { Check(); return mr; }
        }

        /// <summary>The buffer registered (pinned).</summary>
        public byte[] Buffer {
            get { return buffer; }
        }

        /// <summary>The address of its first byte (the iova a peer names it by).</summary>
        public ulong Address {
            get { return address; }
        }

        public int Length {
            get { return buffer.Length; }
        }

        public uint Lkey {
            get { Check(); return lkey; }
        }

        /// <summary>The key a peer's RDMA read, write or atomic names it by.</summary>
        public uint Rkey {
            get { Check(); return rkey; }
        }

        /// <summary>length bytes at offset, to post.</summary>
        public Sge Sge(long offset, int length)
        {
            return new Sge(this, offset, length);
        }

        /// <summary>The whole buffer, to post.</summary>
        public Sge Sge()
        {
            return new Sge(this, 0, buffer.Length);
        }

        /// <summary>Whether its buffer is pinned (for the tests).</summary>
        internal bool Pinned {
            get { lock (pinLock) return pin.IsAllocated; }
        }

        internal void Retain()
        {
            lock (pinLock) {
                if (!pin.IsAllocated)
                    throw new ObjectDisposedException("MemoryRegion");
                pins++;
            }
        }

        internal void Release()
        {
            lock (pinLock) {
                if (--pins == 0)
                    pin.Free();
            }
        }

        internal override void Destroy()
        {
            Rdma.ibv_dereg_mr(mr);
        }

        internal override void Released()
        {
            Release();
        }
    }
}
