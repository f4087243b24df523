// rdmaverbs' object API for C#, beside the raw one (Rdma, Api.cs): an
// endpoint (an rdma_cm id and its QP), a PD, MRs over pinned byte arrays,
// CQs, a completion channel, an SRQ, event channels; each IDisposable
// (using), closed in the order C needs whatever the program does, errors
// thrown as RdmaVerbsException with their errno, every wait boundable, and
// every buffer the card may use kept alive and pinned (see README.md).
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

[assembly: InternalsVisibleTo("RdmaVerbsTest")]

namespace RdmaVerbs
{
    /// <summary>An object of the object API: a C object this binding made,
    /// disposed the .NET way (using). Disposing it first disposes the
    /// objects that depend on it (a PD's MRs, SRQs and QPs; a CQ's QPs; a
    /// channel's CQs or ids), the last made first, then destroys it; twice
    /// does nothing; a disposed object throws ObjectDisposedException. An
    /// object not disposed is never collected (each open one is held here,
    /// with its buffers): it lives until disposed, or until the process
    /// exits, so that no memory the card may use is ever freed under
    /// it.</summary>
    public abstract class Resource : IDisposable
    {
        static readonly HashSet<Resource> Open = new HashSet<Resource>();
        static readonly object Graph = new object();

        /// <summary>Called with each object as it is destroyed (for the tests).</summary>
        internal static Action<Resource> OnDestroy;

        readonly List<Resource> needs = new List<Resource>();
        readonly List<Resource> dependents = new List<Resource>();
        /// <summary>Whether this binding made the C object (and destroys it),
        /// or was handed it (the tests' fakes).</summary>
        internal readonly bool Owned;
        volatile bool disposed;

        internal Resource(bool owned)
        {
            Owned = owned;
        }

        /// <summary>Records that this object is open and depends on needs
        /// (non-null ones), which are disposed only after it.</summary>
        internal void Opened(params Resource[] needs)
        {
            lock (Graph) {
                foreach (var r in needs) {
                    if (r == null)
                        continue;
                    r.Check();
                    this.needs.Add(r);
                    r.dependents.Add(this);
                }
                Open.Add(this);
            }
        }

        internal abstract void Destroy();

        /// <summary>What an object drops as it is disposed, owned or not,
        /// before its C object is destroyed: an rdma_cm id's or a channel's
        /// kept events.</summary>
        internal virtual void Closing()
        {
        }

        /// <summary>What an object drops once its C object is gone (or, not
        /// owned, at Dispose): the buffers it held.</summary>
        internal virtual void Released()
        {
        }

        internal void Check()
        {
            if (disposed)
                throw new ObjectDisposedException(GetType().Name);
        }

        public bool IsDisposed {
            get { return disposed; }
        }

        /// <summary>The C object's address (for the raw API, Rdma).</summary>
        public abstract IntPtr Handle { get; }

        /// <summary>Disposes the objects that depend on this one, the last made
        /// first, then this one. The first failure is thrown after every other
        /// object was disposed; an object whose C destroy failed stays
        /// open.</summary>
        public void Dispose()
        {
            var failures = new List<Exception>();
            lock (Graph) {
                if (disposed)
                    return;
                foreach (var d in Enumerable.Reverse(dependents.ToList())) {
                    try {
                        d.Dispose();
                    } catch (Exception e) {
                        failures.Add(e);
                    }
                }
                try {
                    var hook = OnDestroy;
                    if (hook != null)
                        hook(this);
                    Closing();
                    if (Owned)
                        Destroy();
                    Released();
                    disposed = true;
                    foreach (var r in needs)
                        r.dependents.Remove(this);
                    needs.Clear();
                    Open.Remove(this);
                } catch (Exception e) {
                    failures.Add(e);
                }
            }
            if (failures.Count == 1)
                throw failures[0];
            if (failures.Count > 1)
                throw new AggregateException(failures);
        }

        /// <summary>How many objects are open (for the tests).</summary>
        internal static int OpenCount {
            get { lock (Graph) return Open.Count; }
        }

        /// <summary>Disposes r after a failure, adding nothing it throws.</summary>
        internal static void DisposeAfterFailure(Resource r)
        {
            try {
                r.Dispose();
            } catch (Exception) {
                // the first failure is the one thrown
            }
        }
    }

    /// <summary>What the object API calls below Rdma's marshalling: the data
    /// path at RDMAVERBS_1.3 with the address of work requests laid out here
    /// (at the offsets of Api.cs's structs, checked against the system
    /// headers), libc's poll for the channels' file descriptors.</summary>
    static class Calls
    {
        // Non-default versions (RDMAVERBS_1.3), which a DllImport's look-up
        // by name does not find: bound with dlvsym, each once (they return
        // an errno value: nothing to read after them).
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        delegate int Post(IntPtr queue, IntPtr wr, out IntPtr bad);

        static Post post_send, post_recv, post_srq_recv;

        internal static int PostSend(IntPtr qp, IntPtr wr, out IntPtr bad)
        {
            if (post_send == null)
                post_send = Native.Bind<Post>("ibv_post_send", "RDMAVERBS_1.3");
            return post_send(qp, wr, out bad);
        }

        internal static int PostRecv(IntPtr qp, IntPtr wr, out IntPtr bad)
        {
            if (post_recv == null)
                post_recv = Native.Bind<Post>("ibv_post_recv", "RDMAVERBS_1.3");
            return post_recv(qp, wr, out bad);
        }

        internal static int PostSrqRecv(IntPtr srq, IntPtr wr, out IntPtr bad)
        {
            if (post_srq_recv == null)
                post_srq_recv = Native.Bind<Post>("ibv_post_srq_recv", "RDMAVERBS_1.3");
            return post_srq_recv(srq, wr, out bad);
        }

        [StructLayout(LayoutKind.Sequential)]
        struct PollFd
        {
            public int fd;
            public short events, revents;
        }

        [DllImport("libc.so.6", SetLastError = true)]
        static extern int poll(ref PollFd fds, ulong nfds, int timeout);

        const int POLLIN = 1, EINTR = 4;

        /// <summary>Waits until fd is readable, timeoutMs at most (negative: no
        /// limit); else RdmaVerbsException(function, ETIMEDOUT).</summary>
        internal static void Readable(int fd, int timeoutMs, string function)
        {
            var deadline = DateTime.UtcNow.AddMilliseconds(Math.Max(0, timeoutMs));
            while (true) {
                var p = new PollFd { fd = fd, events = POLLIN };
                int left = timeoutMs < 0 ? -1 : (int)Math.Ceiling(Math.Max(0, (deadline - DateTime.UtcNow).TotalMilliseconds));
                int r = poll(ref p, 1, left);
                if (r > 0)
                    return;
                if (r == 0)
                    throw new RdmaVerbsException(function, Rdma.ETIMEDOUT, "nothing within " + timeoutMs + " ms");
                int errno = Marshal.GetLastWin32Error();
                if (errno != EINTR)
                    throw new RdmaVerbsException("poll", errno);
            }
        }

        /// <summary>A 32-bit value in network order from host order (and back).</summary>
        internal static uint Net(uint v)
        {
            return BitConverter.IsLittleEndian ? (uint)System.Net.IPAddress.HostToNetworkOrder((int)v) : v;
        }

        static int Off(Type t, string field)
        {
            return (int)Marshal.OffsetOf(t, field);
        }

        internal static readonly int SGE = Marshal.SizeOf(typeof(ibv_sge));
        internal static readonly int SEND_WR = Marshal.SizeOf(typeof(ibv_send_wr));
        internal static readonly int RECV_WR = Marshal.SizeOf(typeof(ibv_recv_wr));
        static readonly int WR = Off(typeof(ibv_send_wr), "wr");
        internal static readonly int SW_WR_ID = Off(typeof(ibv_send_wr), "wr_id"),
            SW_NEXT = Off(typeof(ibv_send_wr), "next"), SW_SG_LIST = Off(typeof(ibv_send_wr), "sg_list"),
            SW_NUM_SGE = Off(typeof(ibv_send_wr), "num_sge"), SW_OPCODE = Off(typeof(ibv_send_wr), "opcode"),
            SW_SEND_FLAGS = Off(typeof(ibv_send_wr), "send_flags"), SW_IMM_DATA = Off(typeof(ibv_send_wr), "imm_data"),
            SW_RDMA_REMOTE_ADDR = WR + Off(typeof(ibv_send_wr_wr_rdma), "remote_addr"),
            SW_RDMA_RKEY = WR + Off(typeof(ibv_send_wr_wr_rdma), "rkey"),
            SW_ATOMIC_REMOTE_ADDR = WR + Off(typeof(ibv_send_wr_wr_atomic), "remote_addr"),
            SW_ATOMIC_COMPARE_ADD = WR + Off(typeof(ibv_send_wr_wr_atomic), "compare_add"),
            SW_ATOMIC_SWAP = WR + Off(typeof(ibv_send_wr_wr_atomic), "swap"),
            SW_ATOMIC_RKEY = WR + Off(typeof(ibv_send_wr_wr_atomic), "rkey");
        internal static readonly int RW_WR_ID = Off(typeof(ibv_recv_wr), "wr_id"),
            RW_NEXT = Off(typeof(ibv_recv_wr), "next"), RW_SG_LIST = Off(typeof(ibv_recv_wr), "sg_list"),
            RW_NUM_SGE = Off(typeof(ibv_recv_wr), "num_sge");
        static readonly int SGE_ADDR = Off(typeof(ibv_sge), "addr"), SGE_LENGTH = Off(typeof(ibv_sge), "length"),
            SGE_LKEY = Off(typeof(ibv_sge), "lkey");

        /// <summary>Writes g as an ibv_sge at p.</summary>
        internal static void WriteSge(IntPtr p, Sge g)
        {
            Marshal.WriteInt64(p, SGE_ADDR, (long)g.Address);
            Marshal.WriteInt32(p, SGE_LENGTH, g.Length);
            Marshal.WriteInt32(p, SGE_LKEY, (int)g.Mr.Lkey);
        }

        /// <summary>Writes n zero bytes at p (n a multiple of 8).</summary>
        internal static void Clear(IntPtr p, int n)
        {
            for (int i = 0; i < n; i += 8)
                Marshal.WriteInt64(p, i, 0);
        }
    }

    /// <summary>C memory of the binding's own (AllocHGlobal), grown as needed,
    /// freed with its owner.</summary>
    sealed class Scratch
    {
        IntPtr p = IntPtr.Zero;
        int size;

        /// <summary>At least n bytes, zeroed.</summary>
        public IntPtr Get(int n)
        {
            n = (n + 7) & ~7;
            if (size < n) {
                Free();
                size = Math.Max(n, 1024);
                p = Marshal.AllocHGlobal(size);
            }
            Calls.Clear(p, n);
            return p;
        }

        public void Free()
        {
            if (p != IntPtr.Zero)
                Marshal.FreeHGlobal(p);
            p = IntPtr.Zero;
            size = 0;
        }
    }

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

    /// <summary>An rdma_cm event as read (a copy), then acknowledged.</summary>
    public sealed class CmEvent
    {
        public readonly int Type, Status;
        public readonly IntPtr Id, ListenId;

        internal CmEvent(int type, int status, IntPtr id, IntPtr listenId)
        {
            Type = type;
            Status = status;
            Id = id;
            ListenId = listenId;
        }

        public string Name {
            get { return Rdma.rdma_event_str((uint)Type); }
        }

        /// <summary>The errno an unwanted event stands for: its status when
        /// negative, ECONNREFUSED for a rejection, else EPROTO.</summary>
        internal int Errno {
            get { return Status < 0 ? -Status : Type == Rdma.RDMA_CM_EVENT_REJECTED ? 111 : 71; }
        }
    }

    /// <summary>An rdma_cm event channel: the events of the ids made on it,
    /// each read and acknowledged at once; every wait can be bounded (its
    /// file descriptor polled first: ETIMEDOUT; a negative limit: none).
    /// One thread waits on it at a time. Disposing it disposes the ids made
    /// on it. An event read while waiting for another is kept for its id if
    /// that is one of this channel's endpoints or listeners, or a connect
    /// request's new id for one of its listeners; else it is dropped (a
    /// connect request's id destroyed: the request refused). When an
    /// endpoint or listener is disposed, the events kept for it are dropped,
    /// and the ids of the connect requests it had not taken
    /// (Listener.GetRequest) are destroyed: no event of a closed id is ever
    /// given to another id at the same address.</summary>
    public sealed class EventChannel : Resource
    {
        /// <summary>The C calls of a channel (the tests give a stand-in).</summary>
        internal interface ISource
        {
            /// <summary>Waits until an event can be read, timeoutMs at most
            /// (negative: no limit), else RdmaVerbsException(function,
            /// ETIMEDOUT).</summary>
            void Await(int timeoutMs, string function);

            /// <summary>The next event (rdma_get_cm_event), copied, acknowledged.</summary>
            CmEvent Get();

            /// <summary>rdma_destroy_id, of a connect request's id nobody took.</summary>
            void DestroyId(IntPtr id);
        }

        sealed class Source : ISource
        {
            readonly IntPtr channel;
            readonly int fd;

            internal Source(IntPtr channel, int fd)
            {
                this.channel = channel;
                this.fd = fd;
            }

            public void Await(int timeoutMs, string function)
            {
                Calls.Readable(fd, timeoutMs, function);
            }

            public CmEvent Get()
            {
                IntPtr ev;
                Rdma.rdma_get_cm_event(channel, out ev);
                var e = Marshal.PtrToStructure<rdma_cm_event>(ev);
                var copy = new CmEvent((int)e.@event, e.status, e.id, e.listen_id);
                Rdma.rdma_ack_cm_event(ev);
                return copy;
            }

            public void DestroyId(IntPtr id)
            {
                Rdma.rdma_destroy_id(id);
            }
        }

        readonly IntPtr channel;
        readonly int fd;
        readonly ISource source;
        /// <summary>Held while waiting (one waiter at a time).</summary>
        readonly object waiting = new object();
        /// <summary>Guards held and ids; also held from an event's read to its
        /// routing, so that an id forgotten (then destroyed, its address free
        /// for another) never gets an event read before. Never held while
        /// waiting.</summary>
        readonly object guard = new object();
        readonly List<CmEvent> held = new List<CmEvent>();
        /// <summary>The ids whose events are kept: an endpoint's or a
        /// listener's (to IntPtr.Zero), or a connect request's new id not yet
        /// taken (to its listener's id).</summary>
        readonly Dictionary<IntPtr, IntPtr> ids = new Dictionary<IntPtr, IntPtr>();

        /// <summary>rdma_create_event_channel.</summary>
        public EventChannel() : base(true)
        {
            channel = Rdma.rdma_create_event_channel();
            fd = Marshal.PtrToStructure<rdma_event_channel>(channel).fd;
            source = new Source(channel, fd);
            Opened();
        }

        /// <summary>A channel whose C calls are source's (the tests' stand-in:
        /// nothing made, nothing destroyed but through source).</summary>
        internal EventChannel(ISource source) : base(false)
        {
            fd = -1;
            this.source = source;
            Opened();
        }

        public override IntPtr Handle {
            get { Check(); return channel; }
        }

        /// <summary>Its file descriptor.</summary>
        public int Fd {
            get { Check(); return fd; }
        }

        static bool IsRequest(CmEvent e)
        {
            return e.Type == Rdma.RDMA_CM_EVENT_CONNECT_REQUEST;
        }

        /// <summary>The next event (of any id), timeoutMs at most. A connect
        /// request's new id is then the caller's (no listener here takes
        /// it).</summary>
        public CmEvent Next(int timeoutMs)
        {
            lock (waiting) {
                Check();
                lock (guard) {
                    if (held.Count > 0) {
                        var e = held[0];
                        held.RemoveAt(0);
                        if (IsRequest(e))
                            ids.Remove(e.Id);
                        return e;
                    }
                }
                source.Await(timeoutMs, "rdma_get_cm_event");
                lock (guard)
                    return source.Get();
            }
        }

        /// <summary>The next event that matches; the others read meanwhile are
        /// kept for their ids (or dropped, as the class says).</summary>
        internal CmEvent Next(Func<CmEvent, bool> match, int timeoutMs, string function)
        {
            lock (waiting) {
                Check();
                var deadline = DateTime.UtcNow.AddMilliseconds(Math.Max(0, timeoutMs));
                while (true) {
                    lock (guard) {
                        int i = held.FindIndex(e => match(e));
                        if (i >= 0) {
                            var e = held[i];
                            held.RemoveAt(i);
                            if (IsRequest(e) && ids.ContainsKey(e.Id))
                                ids[e.Id] = IntPtr.Zero;   // taken: no listener destroys it
                            return e;
                        }
                    }
                    int left = timeoutMs < 0 ? -1 : (int)Math.Max(0, (deadline - DateTime.UtcNow).TotalMilliseconds);
                    source.Await(left, function);
                    lock (guard)
                        Route(source.Get());
                }
            }
        }

        /// <summary>Keeps e for its id, or drops it (under guard).</summary>
        void Route(CmEvent e)
        {
            IntPtr owner;
            if (IsRequest(e) && e.ListenId != IntPtr.Zero && ids.TryGetValue(e.ListenId, out owner) && owner == IntPtr.Zero) {
                ids[e.Id] = e.ListenId;   // a listener's: its new id held until taken
                held.Add(e);
            } else if (IsRequest(e)) {
                source.DestroyId(e.Id);   // for no listener of ours: refused
            } else if (ids.ContainsKey(e.Id)) {
                held.Add(e);
            }
        }

        /// <summary>Keeps the events of id (an endpoint's or a listener's,
        /// made on this channel) from now on; a connect request's id:
        /// taken.</summary>
        internal void Add(IntPtr id)
        {
            lock (guard)
                ids[id] = IntPtr.Zero;
        }

        /// <summary>id is being disposed (then destroyed): its events are
        /// dropped; if it was a listener's, so are its connect requests not
        /// taken, their ids destroyed; if it was a connect request's not
        /// taken, it is destroyed.</summary>
        internal void Forget(IntPtr id)
        {
            lock (guard) {
                IntPtr owner;
                if (!ids.TryGetValue(id, out owner))
                    return;
                ids.Remove(id);
                var requests = ids.Where(p => p.Value == id).Select(p => p.Key).ToList();
                foreach (var r in requests)
                    ids.Remove(r);
                if (owner != IntPtr.Zero)
                    requests.Add(id);
                held.RemoveAll(e => e.Id == id || requests.Contains(e.Id));
                Destroy(requests);
            }
        }

        /// <summary>A connect request taken and not wanted (its event's status
        /// not 0): its events dropped, its id destroyed (the request
        /// refused).</summary>
        internal void Refuse(IntPtr id)
        {
            lock (guard) {
                Forget(id);
                source.DestroyId(id);
            }
        }

        /// <summary>Destroys the ids of requests, each; the first failure is
        /// thrown after.</summary>
        void Destroy(List<IntPtr> requests)
        {
            Exception first = null;
            foreach (var r in requests) {
                try {
                    source.DestroyId(r);
                } catch (Exception e) {
                    if (first == null)
                        first = e;
                }
            }
            if (first != null)
                throw first;
        }

        /// <summary>How many events are kept (for the tests).</summary>
        internal int HeldCount {
            get { lock (guard) return held.Count; }
        }

        /// <summary>The event for id of type want, else RdmaVerbsException:
        /// another event (its errno), or none in time (ETIMEDOUT).</summary>
        internal CmEvent Expect(IntPtr id, int want, int timeoutMs, string function)
        {
            var e = Next(ev => ev.Id == id, timeoutMs, function);
            if (e.Type != want || e.Status != 0)
                throw new RdmaVerbsException(function, e.Errno, e.Name + " status " + e.Status + ", not "
                                             + Rdma.rdma_event_str((uint)want));
            return e;
        }

        internal override void Destroy()
        {
            Rdma.rdma_destroy_event_channel(channel);
        }
    }

    /// <summary>What Endpoint.CreateQp makes: an RC QP on a PD, a send CQ and
    /// a receive CQ, an SRQ or none; by default 16 send and 16 receive work
    /// requests (none with an SRQ), one SGE each, only the signaled work
    /// requests completed.</summary>
    public sealed class QpInit
    {
        internal readonly ProtectionDomain Pd;
        internal readonly CompletionQueue SendCq, RecvCq;
        public SharedReceiveQueue Srq;
        public int MaxSendWr = 16, MaxRecvWr = 16, MaxSendSge = 1, MaxRecvSge = 1, MaxInlineData;
        public bool SignalAll;

        public QpInit(ProtectionDomain pd, CompletionQueue cq) : this(pd, cq, cq)
        {
        }

        public QpInit(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq)
        {
            Pd = pd;
            SendCq = sendCq;
            RecvCq = recvCq;
        }
    }

    /// <summary>An rdma_cm id and, once made, its QP (CreateQp): one end of
    /// an RC connection. A client's comes from Resolve, a server's from
    /// Listener.GetRequest; then Connect or Accept. Every wait for an
    /// rdma_cm event takes its time limit (ETIMEDOUT; negative: none);
    /// another event than the one awaited (REJECTED, UNREACHABLE, ...)
    /// throws RdmaVerbsException with its errno. Disposing it first disposes
    /// what was made on it, the last made first: its QP (rdma_destroy_qp),
    /// and the PDs, CQs and completion channels made with it (on its
    /// context: they would outlive the id's hold on the device otherwise;
    /// make them on Context to keep them past it); then it destroys its id,
    /// and its own event channel if it made one.</summary>
    public sealed class Endpoint : Resource
    {
        readonly EventChannel events;
        readonly bool ownEvents;
        readonly IntPtr id;
        QueuePair qp;

        internal Endpoint(EventChannel events, bool ownEvents, IntPtr id, bool owned) : base(owned)
        {
            this.events = events;
            this.ownEvents = ownEvents;
            this.id = id;
            Opened(ownEvents ? null : events);
            if (events != null)
                events.Add(id);
        }

        /// <summary>A client's endpoint: an id on events, the address of
        /// addr:port and then the route resolved, each event awaited timeoutMs
        /// at most. On a failure, what was made is disposed.</summary>
        public static Endpoint Resolve(EventChannel events, string addr, int port, int timeoutMs)
        {
            return Resolve(events, false, addr, port, timeoutMs);
        }

        /// <summary>As Resolve, on an event channel of the endpoint's own.</summary>
        public static Endpoint Resolve(string addr, int port, int timeoutMs)
        {
            var own = new EventChannel();
            try {
                return Resolve(own, true, addr, port, timeoutMs);
            } catch (Exception) {
                DisposeAfterFailure(own);
                throw;
            }
        }

        static Endpoint Resolve(EventChannel events, bool own, string addr, int port, int timeoutMs)
        {
            IntPtr id;
            Rdma.rdma_create_id(events.Handle, out id, IntPtr.Zero, (uint)Rdma.RDMA_PS_TCP);
            var ep = new Endpoint(events, own, id, true);
            try {
                var hints = new rdma_addrinfo { ai_port_space = Rdma.RDMA_PS_TCP };
                IntPtr res;
                Rdma.rdma_getaddrinfo(addr, port.ToString(), ref hints, out res);
                try {
                    Rdma.rdma_resolve_addr(id, IntPtr.Zero, Marshal.PtrToStructure<rdma_addrinfo>(res).ai_dst_addr, timeoutMs);
                } finally {
                    Rdma.rdma_freeaddrinfo(res);
                }
                events.Expect(id, Rdma.RDMA_CM_EVENT_ADDR_RESOLVED, timeoutMs, "rdma_resolve_addr");
                Rdma.rdma_resolve_route(id, timeoutMs);
                events.Expect(id, Rdma.RDMA_CM_EVENT_ROUTE_RESOLVED, timeoutMs, "rdma_resolve_route");
                return ep;
            } catch (Exception) {
                DisposeAfterFailure(ep);
                throw;
            }
        }

        public override IntPtr Handle {
            get { Check(); return id; }
        }

        /// <summary>The id's device context (id->verbs), on which its PD, CQs
        /// and channels are made.</summary>
        public IntPtr Context {
            get { Check(); return Marshal.PtrToStructure<rdma_cm_id>(id).verbs; }
        }

        public EventChannel Events {
            get { return events; }
        }

        /// <summary>Makes the id's QP (rdma_create_qp); it is disposed before
        /// the PD, CQs and SRQ it uses, and before the id.</summary>
        public QueuePair CreateQp(QpInit init)
        {
            Check();
            if (qp != null)
                throw new InvalidOperationException("the endpoint already has a QP");
            qp = new QueuePair(this, id, init);
            return qp;
        }

        /// <summary>The QP (CreateQp's).</summary>
        public QueuePair Qp {
            get {
                var q = qp;
                if (q == null)
                    throw new InvalidOperationException("the endpoint has no QP (CreateQp)");
                q.Check();
                return q;
            }
        }

        internal void Forget(QueuePair q)
        {
            if (qp == q)
                qp = null;
        }

        /// <summary>The parameters Connect and Accept use unless given others:
        /// one RDMA read or atomic in flight each way, 7 retries, 7 RNR
        /// retries.</summary>
        public static rdma_conn_param DefaultParam()
        {
            return new rdma_conn_param { responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 };
        }

        /// <summary>rdma_connect, then its ESTABLISHED event.</summary>
        public void Connect(int timeoutMs)
        {
            Connect(DefaultParam(), timeoutMs);
        }

        public void Connect(rdma_conn_param param, int timeoutMs)
        {
            Check();
            Rdma.rdma_connect(id, ref param);
            events.Expect(id, Rdma.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, "rdma_connect");
        }

        /// <summary>rdma_accept (a server's endpoint), then its ESTABLISHED event.</summary>
        public void Accept(int timeoutMs)
        {
            Accept(DefaultParam(), timeoutMs);
        }

        public void Accept(rdma_conn_param param, int timeoutMs)
        {
            Check();
            Rdma.rdma_accept(id, ref param);
            events.Expect(id, Rdma.RDMA_CM_EVENT_ESTABLISHED, timeoutMs, "rdma_accept");
        }

        /// <summary>rdma_disconnect, then its DISCONNECTED event.</summary>
        public void Disconnect(int timeoutMs)
        {
            Check();
            Rdma.rdma_disconnect(id);
            AwaitDisconnect(timeoutMs);
        }

        /// <summary>The DISCONNECTED event of a connection the peer ends.</summary>
        public void AwaitDisconnect(int timeoutMs)
        {
            Check();
            events.Expect(id, Rdma.RDMA_CM_EVENT_DISCONNECTED, timeoutMs, "rdma_disconnect");
        }

        public void PostSend(params SendWork[] wrs)
        {
            Qp.PostSend(wrs);
        }

        public void PostRecv(params RecvWork[] wrs)
        {
            Qp.PostRecv(wrs);
        }

        internal override void Closing()
        {
            if (events != null)
                events.Forget(id);   // before the id is destroyed: its address is then free for another
        }

        internal override void Destroy()
        {
            Rdma.rdma_destroy_id(id);
            if (ownEvents)
                events.Dispose();
        }
    }

    /// <summary>A listening rdma_cm id: GetRequest gives each connect request
    /// as an Endpoint, to be given its QP and accepted. Disposing it destroys
    /// the ids of the connect requests read and not taken (refusing them),
    /// then its own; the endpoints it gave are disposed on their own.</summary>
    public sealed class Listener : Resource
    {
        readonly EventChannel events;
        readonly IntPtr id;

        /// <summary>A listening id on events; not owned: the tests' fake.</summary>
        internal Listener(EventChannel events, IntPtr id, bool owned) : base(owned)
        {
            this.events = events;
            this.id = id;
            Opened(events);
            events.Add(id);
        }

        /// <summary>An id on events bound to addr:port and listening (backlog).</summary>
        public static Listener Listen(EventChannel events, string addr, int port, int backlog)
        {
            IntPtr id;
            Rdma.rdma_create_id(events.Handle, out id, IntPtr.Zero, (uint)Rdma.RDMA_PS_TCP);
            var l = new Listener(events, id, true);
            try {
                var hints = new rdma_addrinfo { ai_flags = Rdma.RAI_PASSIVE, ai_port_space = Rdma.RDMA_PS_TCP };
                IntPtr res;
                Rdma.rdma_getaddrinfo(addr, port.ToString(), ref hints, out res);
                try {
                    Rdma.rdma_bind_addr(id, Marshal.PtrToStructure<rdma_addrinfo>(res).ai_src_addr);
                } finally {
                    Rdma.rdma_freeaddrinfo(res);
                }
                Rdma.rdma_listen(id, backlog);
                return l;
            } catch (Exception) {
                DisposeAfterFailure(l);
                throw;
            }
        }

        public override IntPtr Handle {
            get { Check(); return id; }
        }

        /// <summary>The next connect request (timeoutMs at most): an endpoint
        /// of the new id, not yet accepted.</summary>
        public Endpoint GetRequest(int timeoutMs)
        {
            Check();
            var e = events.Next(ev => ev.ListenId == id || ev.Id == id, timeoutMs, "rdma_get_request");
            if (e.Type != Rdma.RDMA_CM_EVENT_CONNECT_REQUEST || e.Status != 0) {
                if (e.Type == Rdma.RDMA_CM_EVENT_CONNECT_REQUEST)
                    events.Refuse(e.Id);   // nobody's: destroyed
                throw new RdmaVerbsException("rdma_get_request", e.Errno, e.Name + " status " + e.Status
                                             + ", not RDMA_CM_EVENT_CONNECT_REQUEST");
            }
            return new Endpoint(events, false, e.Id, Owned);   // (a fake listener's: a fake)
        }

        internal override void Closing()
        {
            events.Forget(id);   // the connect requests not taken: their ids destroyed
        }

        internal override void Destroy()
        {
            Rdma.rdma_destroy_id(id);
        }
    }

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

    /// <summary>An endpoint's QP (Endpoint.CreateQp): posts work requests and
    /// holds what each uses (its MRs' buffers, pinned) until its completion
    /// is reaped by CompletionQueue.Poll (an unsignaled send: with the next
    /// signaled one's), or until the QP is disposed.</summary>
    public sealed class QueuePair : Resource
    {
        readonly Endpoint ep;
        readonly IntPtr id, qp;
        readonly uint qpNum;
        readonly CompletionQueue sendCq, recvCq;
        readonly SharedReceiveQueue srq;
        readonly LinkedList<KeyValuePair<ulong, Sge[]>> sends = new LinkedList<KeyValuePair<ulong, Sge[]>>(),
            recvs = new LinkedList<KeyValuePair<ulong, Sge[]>>();
        readonly Scratch scratch = new Scratch();

        internal QueuePair(Endpoint ep, IntPtr id, QpInit init) : base(true)
        {
            var a = new ibv_qp_init_attr {
                send_cq = init.SendCq.Handle, recv_cq = init.RecvCq.Handle,
                srq = init.Srq == null ? IntPtr.Zero : init.Srq.Handle,
                cap = new ibv_qp_cap {
                    max_send_wr = (uint)init.MaxSendWr, max_recv_wr = init.Srq == null ? (uint)init.MaxRecvWr : 0,
                    max_send_sge = (uint)init.MaxSendSge, max_recv_sge = init.Srq == null ? (uint)init.MaxRecvSge : 0,
                    max_inline_data = (uint)init.MaxInlineData,
                },
                qp_type = (uint)Rdma.IBV_QPT_RC, sq_sig_all = init.SignalAll ? 1 : 0,
            };
            Rdma.rdma_create_qp(id, init.Pd.Handle, ref a);
            this.ep = ep;
            this.id = id;
            qp = Marshal.PtrToStructure<rdma_cm_id>(id).qp;
            qpNum = Marshal.PtrToStructure<ibv_qp>(qp).qp_num;
            sendCq = init.SendCq;
            recvCq = init.RecvCq;
            srq = init.Srq;
            Attach(init.Pd);
        }

        /// <summary>A QP this binding did not make (the tests' fake).</summary>
        internal QueuePair(Endpoint ep, ProtectionDomain pd, IntPtr qp, uint qpNum, CompletionQueue sendCq,
                           CompletionQueue recvCq, SharedReceiveQueue srq) : base(false)
        {
            this.ep = ep;
            this.qp = qp;
            this.qpNum = qpNum;
            this.sendCq = sendCq;
            this.recvCq = recvCq;
            this.srq = srq;
            Attach(pd);
        }

        void Attach(ProtectionDomain pd)
        {
            Opened(ep, pd, sendCq, recvCq, srq);
            sendCq.Attach(this);
            recvCq.Attach(this);
        }

        public override IntPtr Handle {
            get { Check(); return qp; }
        }

        /// <summary>Its number, as completions give it.</summary>
        public uint QpNum {
            get { return qpNum; }
        }

        /// <summary>How many posted work requests it holds.</summary>
        public int Held {
            get { lock (sends) return sends.Count + recvs.Count; }
        }

        /// <summary>Posts wrs, joined in one list, in one ibv_post_send; what
        /// they use is held until their completions are reaped. A failure
        /// throws RdmaVerbsException (the errno returned); the work requests
        /// from the one refused on were not posted.</summary>
        public void PostSend(params SendWork[] wrs)
        {
            Rdma.Init();
            lock (sends) {
                Check();
                int n = wrs.Length;
                if (n == 0)
                    return;
                foreach (var w in wrs)
                    foreach (var g in w.Sges)
                        g.Mr.Check();
                int nsge = wrs.Sum(w => w.Sges.Length);
                IntPtr m = scratch.Get(n * Calls.SEND_WR + nsge * Calls.SGE);
                IntPtr sgl = m + n * Calls.SEND_WR;
                int s = 0;
                for (int i = 0; i < n; i++) {
                    var w = wrs[i];
                    IntPtr o = m + i * Calls.SEND_WR;
                    Marshal.WriteInt64(o, Calls.SW_WR_ID, (long)w.WrId);
                    Marshal.WriteIntPtr(o, Calls.SW_NEXT, i + 1 < n ? o + Calls.SEND_WR : IntPtr.Zero);
                    Marshal.WriteIntPtr(o, Calls.SW_SG_LIST, w.Sges.Length > 0 ? sgl + s * Calls.SGE : IntPtr.Zero);
                    Marshal.WriteInt32(o, Calls.SW_NUM_SGE, w.Sges.Length);
                    Marshal.WriteInt32(o, Calls.SW_OPCODE, w.Opcode);
                    Marshal.WriteInt32(o, Calls.SW_SEND_FLAGS, w.SendFlags);
                    if (w.Opcode == Rdma.IBV_WR_SEND_WITH_IMM || w.Opcode == Rdma.IBV_WR_RDMA_WRITE_WITH_IMM)
                        Marshal.WriteInt32(o, Calls.SW_IMM_DATA, (int)Calls.Net(w.Imm));
                    if (w.Opcode == Rdma.IBV_WR_ATOMIC_CMP_AND_SWP || w.Opcode == Rdma.IBV_WR_ATOMIC_FETCH_AND_ADD) {
                        Marshal.WriteInt64(o, Calls.SW_ATOMIC_REMOTE_ADDR, (long)w.RemoteAddr);
                        Marshal.WriteInt64(o, Calls.SW_ATOMIC_COMPARE_ADD, (long)w.CompareAdd);
                        Marshal.WriteInt64(o, Calls.SW_ATOMIC_SWAP, (long)w.SwapValue);
                        Marshal.WriteInt32(o, Calls.SW_ATOMIC_RKEY, (int)w.Rkey);
                    } else if (w.Opcode != Rdma.IBV_WR_SEND && w.Opcode != Rdma.IBV_WR_SEND_WITH_IMM) {
                        Marshal.WriteInt64(o, Calls.SW_RDMA_REMOTE_ADDR, (long)w.RemoteAddr);   // writes, reads
                        Marshal.WriteInt32(o, Calls.SW_RDMA_RKEY, (int)w.Rkey);
                    }
                    foreach (var g in w.Sges)
                        Calls.WriteSge(sgl + s++ * Calls.SGE, g);
                }
                // Held (pinned) before the call: a completion may be reaped as
                // soon as the card has it.
                foreach (var w in wrs) {
                    RecvWork.Retain(w.Sges);
                    sends.AddLast(new KeyValuePair<ulong, Sge[]>(w.WrId, w.Sges));
                }
                IntPtr bad;
                int r = Calls.PostSend(qp, m, out bad);
                if (r != 0) {
                    int refused = Unposted(bad, m, Calls.SEND_WR, n);
                    for (int i = refused; i < n; i++) {
                        RecvWork.Release(sends.Last.Value.Value);
                        sends.RemoveLast();
                    }
                    throw new RdmaVerbsException("ibv_post_send", r, (n - refused) + " of " + n + " work requests not posted");
                }
            }
        }

        /// <summary>Posts receives to the QP's own receive queue, in one
        /// ibv_post_recv; their buffers held until their completions are
        /// reaped.</summary>
        public void PostRecv(params RecvWork[] wrs)
        {
            Rdma.Init();
            lock (sends) {
                Check();
                if (srq != null)
                    throw new InvalidOperationException("the QP's receives come from its SRQ");
                if (wrs.Length == 0)
                    return;
                foreach (var w in wrs)
                    foreach (var g in w.Sges)
                        g.Mr.Check();
                IntPtr m = RecvWork.LayOut(scratch, wrs);
                foreach (var w in wrs) {
                    RecvWork.Retain(w.Sges);
                    recvs.AddLast(new KeyValuePair<ulong, Sge[]>(w.WrId, w.Sges));
                }
                IntPtr bad;
                int r = Calls.PostRecv(qp, m, out bad);
                if (r != 0) {
                    int refused = Unposted(bad, m, Calls.RECV_WR, wrs.Length);
                    for (int i = refused; i < wrs.Length; i++) {
                        RecvWork.Release(recvs.Last.Value.Value);
                        recvs.RemoveLast();
                    }
                    throw new RdmaVerbsException("ibv_post_recv", r, (wrs.Length - refused) + " of " + wrs.Length
                                                 + " work requests not posted");
                }
            }
        }

        /// <summary>The index of the work request *bad_wr points to (0: none posted).</summary>
        internal static int Unposted(IntPtr bad, IntPtr m, int size, int n)
        {
            long b = bad.ToInt64(), at = m.ToInt64();
            return b >= at && b < at + (long)n * size ? (int)((b - at) / size) : 0;
        }

        /// <summary>A completion of this QP reaped: what it used released, with
        /// the unsignaled sends posted before it.</summary>
        internal void Completed(Completion c)
        {
            lock (sends) {
                bool recv = c.Ok ? c.IsRecv : !sends.Any(p => p.Key == c.WrId);
                if (!recv) {
                    DropThrough(sends, c.WrId);
                    return;
                }
                if (srq == null) {
                    DropThrough(recvs, c.WrId);
                    return;
                }
            }
            srq.Completed(c.WrId);
        }

        static void DropThrough(LinkedList<KeyValuePair<ulong, Sge[]>> q, ulong wrId)
        {
            if (!q.Any(p => p.Key == wrId))
                return;
            while (q.Count > 0) {
                var p = q.First.Value;
                q.RemoveFirst();
                RecvWork.Release(p.Value);
                if (p.Key == wrId)
                    return;
            }
        }

        internal override void Destroy()
        {
            Rdma.rdma_destroy_qp(id);
        }

        internal override void Released()
        {
            sendCq.Detach(this);
            recvCq.Detach(this);
            ep.Forget(this);
            lock (sends) {
                foreach (var p in sends.Concat(recvs))
                    RecvWork.Release(p.Value);
                sends.Clear();
                recvs.Clear();
                scratch.Free();
            }
        }
    }

    /// <summary>A shared receive queue (ibv_create_srq) on a PD: the receives
    /// of the QPs made with it. A posted receive's buffers are held until
    /// its completion is reaped, or the SRQ is disposed.</summary>
    public sealed class SharedReceiveQueue : Resource
    {
        readonly IntPtr srq;
        readonly List<KeyValuePair<ulong, Sge[]>> posted = new List<KeyValuePair<ulong, Sge[]>>();
        readonly Scratch scratch = new Scratch();

        /// <summary>Room for maxWr receives of maxSge SGEs each.</summary>
        public SharedReceiveQueue(ProtectionDomain pd, int maxWr, int maxSge) : base(true)
        {
            var a = new ibv_srq_init_attr { attr = new ibv_srq_attr { max_wr = (uint)maxWr, max_sge = (uint)maxSge } };
            srq = Rdma.ibv_create_srq(pd.Handle, ref a);
            Opened(pd);
        }

        internal SharedReceiveQueue(ProtectionDomain pd, IntPtr srq) : base(false)
        {
            this.srq = srq;
            Opened(pd);
        }

        public override IntPtr Handle {
            get { Check(); return srq; }
        }

        /// <summary>How many posted receives it holds.</summary>
        public int Held {
            get { lock (posted) return posted.Count; }
        }

        /// <summary>Posts receives, joined in one list, in one
        /// ibv_post_srq_recv.</summary>
        public void PostRecv(params RecvWork[] wrs)
        {
            Rdma.Init();
            lock (posted) {
                Check();
                if (wrs.Length == 0)
                    return;
                foreach (var w in wrs)
                    foreach (var g in w.Sges)
                        g.Mr.Check();
                IntPtr m = RecvWork.LayOut(scratch, wrs);
                int before = posted.Count;
                foreach (var w in wrs) {
                    RecvWork.Retain(w.Sges);
                    posted.Add(new KeyValuePair<ulong, Sge[]>(w.WrId, w.Sges));
                }
                IntPtr bad;
                int r = Calls.PostSrqRecv(srq, m, out bad);
                if (r != 0) {
                    int refused = QueuePair.Unposted(bad, m, Calls.RECV_WR, wrs.Length);
                    for (int i = before + refused; i < posted.Count; i++)
                        RecvWork.Release(posted[i].Value);
                    posted.RemoveRange(before + refused, posted.Count - before - refused);
                    throw new RdmaVerbsException("ibv_post_srq_recv", r, (wrs.Length - refused) + " of " + wrs.Length
                                                 + " work requests not posted");
                }
            }
        }

        internal void Completed(ulong wrId)
        {
            lock (posted) {
                int i = posted.FindIndex(p => p.Key == wrId);
                if (i >= 0) {
                    RecvWork.Release(posted[i].Value);
                    posted.RemoveAt(i);
                }
            }
        }

        internal override void Destroy()
        {
            Rdma.ibv_destroy_srq(srq);
        }

        internal override void Released()
        {
            lock (posted) {
                foreach (var p in posted)
                    RecvWork.Release(p.Value);
                posted.Clear();
                scratch.Free();
            }
        }
    }

    /// <summary>A completion queue (ibv_create_cq), on a completion channel
    /// or not. Poll reaps completions, several in one ibv_poll_cq, and
    /// releases what their work requests held. With a channel: Arm, then
    /// WaitEvent (the event acknowledged at once), then Poll. One made on an
    /// endpoint is disposed with it, before its id.</summary>
    public sealed class CompletionQueue : Resource
    {
        readonly IntPtr cq;
        readonly CompletionChannel channel;
        readonly Dictionary<uint, QueuePair> qps = new Dictionary<uint, QueuePair>();
        ibv_wc[] wcs = new ibv_wc[16];

        /// <summary>A CQ of cqe entries at least on the endpoint's device
        /// context, its events on channel (or null); disposed with the
        /// endpoint (before its id).</summary>
        public CompletionQueue(Endpoint ep, int cqe, CompletionChannel channel)
            : this(ep, Rdma.ibv_create_cq(ep.Context, cqe, IntPtr.Zero, channel == null ? IntPtr.Zero : channel.Handle, 0),
                   channel, true)
        {
        }

        /// <summary>A CQ of cqe entries at least on a device context, its
        /// events on channel (or null); disposed on its own (or with its
        /// channel).</summary>
        public CompletionQueue(IntPtr context, int cqe, CompletionChannel channel)
            : this(null, Rdma.ibv_create_cq(context, cqe, IntPtr.Zero, channel == null ? IntPtr.Zero : channel.Handle, 0),
                   channel, true)
        {
        }

        internal CompletionQueue(IntPtr cq) : this(null, cq, null, false)
        {
        }

        /// <summary>cq, made on ep's context (a dependent of ep, and of
        /// channel), or on none.</summary>
        internal CompletionQueue(Endpoint ep, IntPtr cq, CompletionChannel channel, bool owned) : base(owned)
        {
            this.cq = cq;
            this.channel = channel;
            Opened(ep, channel);
            if (channel != null)
                channel.Attach(this);
        }

        public override IntPtr Handle {
            get { Check(); return cq; }
        }

        public CompletionChannel Channel {
            get { return channel; }
        }

        internal void Attach(QueuePair qp)
        {
            lock (qps) qps[qp.QpNum] = qp;
        }

        internal void Detach(QueuePair qp)
        {
            lock (qps) {
                QueuePair q;
                if (qps.TryGetValue(qp.QpNum, out q) && q == qp)
                    qps.Remove(qp.QpNum);
            }
        }

        /// <summary>One ibv_poll_cq of up to max completions: those found.</summary>
        public Completion[] Poll(int max)
        {
            lock (this) {
                Check();
                if (max <= 0)
                    throw new ArgumentOutOfRangeException("max");
                if (wcs.Length < max)
                    wcs = new ibv_wc[max];
                int r = Rdma.ibv_poll_cq(cq, max, wcs);
                var out_ = new Completion[r];
                for (int i = 0; i < r; i++) {
                    var c = out_[i] = new Completion(wcs[i]);
                    QueuePair qp;
                    lock (qps) qps.TryGetValue(c.QpNum, out qp);
                    if (qp != null)
                        qp.Completed(c);
                }
                return out_;
            }
        }

        /// <summary>Polls until n completions, timeoutMs at most (negative: no
        /// limit; ETIMEDOUT:
        /// those reaped meanwhile are then lost to the caller, their buffers
        /// released); a millisecond's pause between empty polls.</summary>
        public Completion[] Poll(int n, int timeoutMs)
        {
            var got = new List<Completion>(n);
            var deadline = DateTime.UtcNow.AddMilliseconds(timeoutMs);
            while (got.Count < n) {
                var some = Poll(Math.Min(16, n - got.Count));
                got.AddRange(some);
                if (some.Length > 0)
                    continue;
                if (timeoutMs >= 0 && DateTime.UtcNow > deadline)
                    throw new RdmaVerbsException("ibv_poll_cq", Rdma.ETIMEDOUT, got.Count + " of " + n
                                                 + " completions within " + timeoutMs + " ms");
                Thread.Sleep(1);
            }
            return got.ToArray();
        }

        /// <summary>ibv_req_notify_cq: the next completion (solicitedOnly: the
        /// next solicited one, or one in error) makes an event.</summary>
        public void Arm(bool solicitedOnly)
        {
            Check();
            Rdma.ibv_req_notify_cq(cq, solicitedOnly ? 1 : 0);
        }

        /// <summary>Waits for this CQ's next event on its channel, timeoutMs at
        /// most (ETIMEDOUT), acknowledged. Arm again, then Poll.</summary>
        public void WaitEvent(int timeoutMs)
        {
            Check();
            if (channel == null)
                throw new InvalidOperationException("the CQ has no completion channel");
            channel.WaitFor(this, timeoutMs);
        }

        internal override void Destroy()
        {
            Rdma.ibv_destroy_cq(cq);
        }

        internal override void Released()
        {
            if (channel != null)
                channel.Detach(this);
        }
    }

    /// <summary>A completion channel (ibv_create_comp_channel): the events of
    /// its CQs, each acknowledged at once; every wait can be bounded. One
    /// made on an endpoint is disposed with it, before its id.</summary>
    public sealed class CompletionChannel : Resource
    {
        readonly IntPtr channel;
        readonly int fd;
        readonly Dictionary<IntPtr, CompletionQueue> cqs = new Dictionary<IntPtr, CompletionQueue>();
        readonly List<CompletionQueue> pending = new List<CompletionQueue>();

        /// <summary>A channel on the endpoint's device context, disposed with
        /// the endpoint (before its id).</summary>
        public CompletionChannel(Endpoint ep) : this(ep, Rdma.ibv_create_comp_channel(ep.Context), true)
        {
        }

        /// <summary>A channel on a device context (an ibv_context *), disposed
        /// on its own.</summary>
        public CompletionChannel(IntPtr context) : this(null, Rdma.ibv_create_comp_channel(context), true)
        {
        }

        CompletionChannel(Endpoint ep, IntPtr channel, bool owned)
            : this(ep, channel, Marshal.PtrToStructure<ibv_comp_channel>(channel).fd, owned)
        {
        }

        /// <summary>channel (its descriptor fd), made on ep's context (a
        /// dependent of ep), or on none; not owned: the tests' fake.</summary>
        internal CompletionChannel(Endpoint ep, IntPtr channel, int fd, bool owned) : base(owned)
        {
            this.channel = channel;
            this.fd = fd;
            Opened(ep);
        }

        public override IntPtr Handle {
            get { Check(); return channel; }
        }

        public int Fd {
            get { Check(); return fd; }
        }

        internal void Attach(CompletionQueue cq)
        {
            lock (cqs) cqs[cq.Handle] = cq;
        }

        internal void Detach(CompletionQueue cq)
        {
            lock (cqs) {
                foreach (var k in cqs.Where(p => p.Value == cq).Select(p => p.Key).ToList())
                    cqs.Remove(k);
            }
            lock (pending) pending.RemoveAll(c => c == cq);
        }

        /// <summary>The next event, timeoutMs at most: the CQ it is for.</summary>
        public CompletionQueue WaitEvent(int timeoutMs)
        {
            lock (pending) {
                Check();
                if (pending.Count > 0) {
                    var c = pending[0];
                    pending.RemoveAt(0);
                    return c;
                }
                return Read(timeoutMs);
            }
        }

        internal void WaitFor(CompletionQueue cq, int timeoutMs)
        {
            lock (pending) {
                Check();
                if (pending.Remove(cq))
                    return;
                var deadline = DateTime.UtcNow.AddMilliseconds(Math.Max(0, timeoutMs));
                while (true) {
                    int left = timeoutMs < 0 ? -1 : (int)Math.Max(0, (deadline - DateTime.UtcNow).TotalMilliseconds);
                    var got = Read(left);
                    if (got == cq)
                        return;
                    if (got != null)
                        pending.Add(got);
                }
            }
        }

        CompletionQueue Read(int timeoutMs)
        {
            Calls.Readable(fd, timeoutMs, "ibv_get_cq_event");
            IntPtr cq, context;
            Rdma.ibv_get_cq_event(channel, out cq, out context);
            Rdma.ibv_ack_cq_events(cq, 1);
            CompletionQueue q;
            lock (cqs) cqs.TryGetValue(cq, out q);
            return q;
        }

        internal override void Destroy()
        {
            Rdma.ibv_destroy_comp_channel(channel);
        }
    }
}
