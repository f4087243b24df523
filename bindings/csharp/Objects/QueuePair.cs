// The QP of an endpoint.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;

namespace RdmaVerbs
{
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
}
