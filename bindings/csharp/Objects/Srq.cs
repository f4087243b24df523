// Shared receive queues.
using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.InteropServices;
using System.Threading;

namespace RdmaVerbs
{
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
}
