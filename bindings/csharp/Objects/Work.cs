// Work requests, their SGEs, and completions.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;

namespace RdmaVerbs
{
    /// <summary>length bytes at offset of a registered buffer (an ibv_sge of
    /// it): MemoryRegion.Sge. A work request posted with it holds the MR's
    /// buffer, pinned, until its completion is reaped.</summary>
    public struct Sge
    {
        public readonly MemoryRegion Mr;
        public readonly long Offset;
        public readonly int Length;

        public Sge(MemoryRegion mr, long offset, int length)
        {
            if (mr == null)
                throw new ArgumentNullException("mr");
            if (offset < 0 || length < 0 || offset + length > mr.Length)
                throw new ArgumentOutOfRangeException("offset", "bytes " + offset + " to " + (offset + length)
                                                      + " of an MR of " + mr.Length);
            Mr = mr;
            Offset = offset;
            Length = length;
        }

        /// <summary>The address of its first byte.</summary>
        public ulong Address {
            get { return Mr.Address + (ulong)Offset; }
        }
    }

    /// <summary>A work request of a send queue (an ibv_send_wr) for
    /// QueuePair.PostSend: a send, an RDMA write or read, an atomic. Signaled
    /// by default (its completion releases its buffers): see Unsignaled.
    /// Immediate data is given in host order.</summary>
    public sealed class SendWork
    {
        internal readonly ulong WrId;
        internal readonly int Opcode;
        internal readonly Sge[] Sges;
        internal int SendFlags = Rdma.IBV_SEND_SIGNALED;
        internal uint Imm;
        internal ulong RemoteAddr, CompareAdd, SwapValue;
        internal uint Rkey;

        SendWork(ulong wrId, int opcode, Sge[] sges)
        {
            WrId = wrId;
            Opcode = opcode;
            Sges = (Sge[])sges.Clone();
        }

        /// <summary>IBV_WR_SEND of the bytes of sges, in order.</summary>
        public static SendWork Send(ulong wrId, params Sge[] sges)
        {
            return new SendWork(wrId, Rdma.IBV_WR_SEND, sges);
        }

        /// <summary>IBV_WR_SEND_WITH_IMM: a send with 32 bits of immediate data.</summary>
        public static SendWork SendWithImm(ulong wrId, uint imm, params Sge[] sges)
        {
            return new SendWork(wrId, Rdma.IBV_WR_SEND_WITH_IMM, sges) { Imm = imm };
        }

        /// <summary>IBV_WR_RDMA_WRITE of sges to remoteAddr of the peer's MR of rkey.</summary>
        public static SendWork Write(ulong wrId, ulong remoteAddr, uint rkey, params Sge[] sges)
        {
            return new SendWork(wrId, Rdma.IBV_WR_RDMA_WRITE, sges) { RemoteAddr = remoteAddr, Rkey = rkey };
        }

        /// <summary>IBV_WR_RDMA_WRITE_WITH_IMM: a write, and immediate data for a receive of the peer's.</summary>
        public static SendWork WriteWithImm(ulong wrId, ulong remoteAddr, uint rkey, uint imm, params Sge[] sges)
        {
            return new SendWork(wrId, Rdma.IBV_WR_RDMA_WRITE_WITH_IMM, sges) { RemoteAddr = remoteAddr, Rkey = rkey, Imm = imm };
        }

        /// <summary>IBV_WR_RDMA_READ of remoteAddr into sges.</summary>
        public static SendWork Read(ulong wrId, ulong remoteAddr, uint rkey, params Sge[] sges)
        {
            return new SendWork(wrId, Rdma.IBV_WR_RDMA_READ, sges) { RemoteAddr = remoteAddr, Rkey = rkey };
        }

        /// <summary>IBV_WR_ATOMIC_FETCH_AND_ADD: add to the peer's 8-byte word,
        /// its old value into result (8 bytes, 8-aligned, host order).</summary>
        public static SendWork FetchAdd(ulong wrId, Sge result, ulong remoteAddr, uint rkey, ulong add)
        {
            return new SendWork(wrId, Rdma.IBV_WR_ATOMIC_FETCH_AND_ADD, new[] { result }) {
                RemoteAddr = remoteAddr, Rkey = rkey, CompareAdd = add };
        }

        /// <summary>IBV_WR_ATOMIC_CMP_AND_SWP: the peer's word becomes swap if
        /// it was compare; its old value into result.</summary>
        public static SendWork CompareSwap(ulong wrId, Sge result, ulong remoteAddr, uint rkey, ulong compare, ulong swap)
        {
            return new SendWork(wrId, Rdma.IBV_WR_ATOMIC_CMP_AND_SWP, new[] { result }) {
                RemoteAddr = remoteAddr, Rkey = rkey, CompareAdd = compare, SwapValue = swap };
        }

        /// <summary>The IBV_SEND_* flags, all of them (IBV_SEND_SIGNALED by default).</summary>
        public SendWork Flags(int sendFlags)
        {
            SendFlags = sendFlags;
            return this;
        }

        /// <summary>With IBV_SEND_SOLICITED: a CQ armed for solicited
        /// completions only makes an event for it.</summary>
        public SendWork Solicited()
        {
            SendFlags |= Rdma.IBV_SEND_SOLICITED;
            return this;
        }

        /// <summary>Without IBV_SEND_SIGNALED: no completion of its own; its
        /// buffers are released with the next signaled one's completion, or
        /// when the QP is disposed.</summary>
        public SendWork Unsignaled()
        {
            SendFlags &= ~Rdma.IBV_SEND_SIGNALED;
            return this;
        }

        public ulong Id {
            get { return WrId; }
        }
    }

    /// <summary>A receive (an ibv_recv_wr): a message lands in sges, in order.</summary>
    public sealed class RecvWork
    {
        internal readonly ulong WrId;
        internal readonly Sge[] Sges;

        public RecvWork(ulong wrId, params Sge[] sges)
        {
            WrId = wrId;
            Sges = (Sge[])sges.Clone();
        }

        public ulong Id {
            get { return WrId; }
        }

        /// <summary>Lays wrs out (joined by next, their SGEs after them) in scratch.</summary>
        internal static IntPtr LayOut(Scratch scratch, RecvWork[] wrs)
        {
            int nsge = wrs.Sum(w => w.Sges.Length);
            IntPtr m = scratch.Get(wrs.Length * Calls.RECV_WR + nsge * Calls.SGE);
            IntPtr sges = m + wrs.Length * Calls.RECV_WR;
            int s = 0;
            for (int i = 0; i < wrs.Length; i++) {
                IntPtr o = m + i * Calls.RECV_WR;
                Marshal.WriteInt64(o, Calls.RW_WR_ID, (long)wrs[i].WrId);
                Marshal.WriteIntPtr(o, Calls.RW_NEXT, i + 1 < wrs.Length ? o + Calls.RECV_WR : IntPtr.Zero);
                Marshal.WriteIntPtr(o, Calls.RW_SG_LIST, wrs[i].Sges.Length > 0 ? sges + s * Calls.SGE : IntPtr.Zero);
                Marshal.WriteInt32(o, Calls.RW_NUM_SGE, wrs[i].Sges.Length);
                foreach (var g in wrs[i].Sges)
                    Calls.WriteSge(sges + s++ * Calls.SGE, g);
            }
            return m;
        }

        /// <summary>Pins (holds) the MRs of every SGE of wrs.</summary>
        internal static void Retain(IEnumerable<Sge> sges)
        {
            foreach (var g in sges)
                g.Mr.Retain();
        }

        internal static void Release(IEnumerable<Sge> sges)
        {
            foreach (var g in sges)
                g.Mr.Release();
        }
    }

    /// <summary>A completion (an ibv_wc) as CompletionQueue.Poll reaped it;
    /// the immediate data in host order. A status other than IBV_WC_SUCCESS
    /// is data, as in C (Ok, StatusText); the opcode is then undefined.</summary>
    public sealed class Completion : IEquatable<Completion>
    {
        public readonly ulong WrId;
        public readonly int Status, Opcode, ByteLen, Flags;
        public readonly uint Imm, QpNum, VendorErr, SrcQp;
        public readonly int PkeyIndex, Slid, Sl, DlidPathBits;

        public Completion(ulong wrId, int status, int opcode, int byteLen, int flags, uint imm, uint qpNum,
                          uint vendorErr, uint srcQp, int pkeyIndex, int slid, int sl, int dlidPathBits)
        {
            WrId = wrId;
            Status = status;
            Opcode = opcode;
            ByteLen = byteLen;
            Flags = flags;
            Imm = imm;
            QpNum = qpNum;
            VendorErr = vendorErr;
            SrcQp = srcQp;
            PkeyIndex = pkeyIndex;
            Slid = slid;
            Sl = sl;
            DlidPathBits = dlidPathBits;
        }

        internal Completion(ibv_wc w)
            : this(w.wr_id, (int)w.status, (int)w.opcode, (int)w.byte_len, (int)w.wc_flags, Calls.Net(w.imm_data),
                   w.qp_num, w.vendor_err, w.src_qp, w.pkey_index, w.slid, w.sl, w.dlid_path_bits)
        {
        }

        /// <summary>Whether it succeeded (IBV_WC_SUCCESS).</summary>
        public bool Ok {
            get { return Status == Rdma.IBV_WC_SUCCESS; }
        }

        /// <summary>Itself if it succeeded, else RdmaVerbsException (EIO)
        /// naming its wr_id and status: cq.Poll(1, t)[0].OrThrow().</summary>
        public Completion OrThrow()
        {
            if (Ok)
                return this;
            throw new RdmaVerbsException("ibv_poll_cq", 5 /* EIO */, "work completion wr_id 0x" + WrId.ToString("x")
                                         + ": " + StatusText + " (status " + Status + ", vendor error 0x"
                                         + VendorErr.ToString("x") + ")");
        }

        /// <summary>Whether it is a receive's (opcode IBV_WC_RECV or above).</summary>
        public bool IsRecv {
            get { return (Opcode & Rdma.IBV_WC_RECV) != 0; }
        }

        /// <summary>The status as text (ibv_wc_status_str).</summary>
        public string StatusText {
            get { return Rdma.ibv_wc_status_str((uint)Status); }
        }

        object[] Fields()
        {
            return new object[] { WrId, Status, Opcode, ByteLen, Flags, Imm, QpNum, VendorErr, SrcQp, PkeyIndex, Slid, Sl,
                                  DlidPathBits };
        }

        public bool Equals(Completion o)
        {
            return o != null && Fields().SequenceEqual(o.Fields());
        }

        public override bool Equals(object o)
        {
            return Equals(o as Completion);
        }

        public override int GetHashCode()
        {
            return WrId.GetHashCode() ^ QpNum.GetHashCode();
        }

        public override string ToString()
        {
            return string.Format("Completion(wr_id 0x{0:x} status {1} opcode {2} byte_len {3} flags 0x{4:x} imm 0x{5:x}"
                                 + " qp {6} vendor_err {7} src_qp {8} pkey {9} slid {10} sl {11} bits {12})",
                                 WrId, Status, Opcode, ByteLen, Flags, Imm, QpNum, VendorErr, SrcQp, PkeyIndex, Slid, Sl,
                                 DlidPathBits);
        }
    }
}
