// The verbs exchange of bindings/verbs-protocol.md from C#, as the client
// against the C peer's server ("peer verbs server ADDR PORT"), through the
// raw API only: the RDMAVERBS_1.3 exports (ibv_post_send,
// ibv_post_srq_recv, ibv_poll_cq, ibv_req_notify_cq) and the real
// librdmacm and libibverbs calls (an event channel and an id, a PD, two
// CQs, the receive CQ's completion channel, an SRQ, the id's QP on them,
// MRs). Usage: mono Verbs.exe client ADDR PORT
using System;
using System.Linq;
using System.Net;
using System.Runtime.InteropServices;
using System.Threading;
using RdmaVerbs;

static class Verbs
{
    const int SLOT = 64, SLOTS = 8;
    const ulong INITIAL = 0x1122334455667788, ADD = 0x1000000000000001;
    const ulong SWAP = 0x0fedcba987654321, STALE_SWAP = 0xdeaddeaddeaddead;
    const long CQ_CONTEXT = 0xc0ffee;   // the receive CQ's cq_context, as ibv_get_cq_event gives it back
    const int WAIT_MS = 60000;
    static readonly int[] SERVER_LENS = { 8, 16, 24, 32, 40 };
    static readonly uint RECV = (uint)Rdma.IBV_WC_GRH;   // a receive's flags on RoCE (rxe)

    [StructLayout(LayoutKind.Sequential)]
    struct PollFd
    {
        public int fd;
        public short events, revents;
    }

    [DllImport("libc.so.6", SetLastError = true)]
    static extern int poll(ref PollFd fds, ulong nfds, int timeout);

    static void Fail(string what)
    {
        Console.Error.WriteLine("verbs client: " + what);
        Environment.Exit(1);
    }

    static void Check(bool ok, string what)
    {
        if (!ok)
            Fail(what);
    }

    static T At<T>(IntPtr p)
    {
        return Marshal.PtrToStructure<T>(p);
    }

    /// <summary>Waits (WAIT_MS) for a channel's file descriptor to be readable.</summary>
    static void Readable(int fd, string what)
    {
        var p = new PollFd { fd = fd, events = 1 /* POLLIN */ };
        int n = poll(ref p, 1, WAIT_MS);
        Check(n == 1, what + (n < 0 ? " (poll: errno " + Marshal.GetLastWin32Error() + ")" : ""));
    }

    /// <summary>The channel's next rdma_cm event: of the type wanted, for id,
    /// status 0; read, then acknowledged (its memory is librdmacm's).</summary>
    static void Event(IntPtr channel, int want, IntPtr id)
    {
        Readable(At<rdma_event_channel>(channel).fd, "no rdma_cm event within the wait");
        IntPtr ev;
        Rdma.rdma_get_cm_event(channel, out ev);
        var e = At<rdma_cm_event>(ev);
        Rdma.rdma_ack_cm_event(ev);
        Check(e.@event == want && e.status == 0 && e.id == id, "rdma_cm event " + Rdma.rdma_event_str(e.@event)
              + " status " + e.status + "; want " + Rdma.rdma_event_str((uint)want));
    }

    static uint Swap32(uint v)
    {
        return (uint)IPAddress.NetworkToHostOrder((int)v);
    }

    /// <summary>One completion, every field (bindings/verbs-protocol.md): what
    /// verbs defines, and rxe's values where it does not (0 for what RC
    /// leaves).</summary>
    static void Completion(ibv_wc wc, ulong wrId, int opcode, int length, uint flags, uint imm, uint qpNum)
    {
        ulong[] got = { wc.wr_id, wc.status, wc.opcode, wc.byte_len, wc.wc_flags, Swap32(wc.imm_data), wc.qp_num,
                        wc.vendor_err, wc.src_qp, wc.pkey_index, wc.slid, wc.sl, wc.dlid_path_bits };
        ulong[] want = { wrId, (ulong)Rdma.IBV_WC_SUCCESS, (ulong)opcode, (ulong)length, flags, imm, qpNum, 0, 0, 0, 0, 0, 0 };
        Check(got.SequenceEqual(want), "completion " + Hex(got) + "; want " + Hex(want) + " ("
              + Rdma.ibv_wc_status_str(wc.status) + ")");
    }

    static string Hex(ulong[] v)
    {
        return "(" + string.Join(", ", v.Select(x => "0x" + x.ToString("x"))) + ")";
    }

    /// <summary>Polls cq until n completions (up to 8 at once).</summary>
    static ibv_wc[] Completions(IntPtr cq, int n)
    {
        var out_ = new ibv_wc[n];
        int got = 0, polls = 0;
        while (got < n) {
            var wc = new ibv_wc[Math.Min(8, n - got)];
            int r = Rdma.ibv_poll_cq(cq, wc.Length, wc);
            Array.Copy(wc, 0, out_, got, r);
            got += r;
            if (r == 0) {
                Check(++polls < WAIT_MS, "too few completions within the wait");
                Thread.Sleep(1);
            }
        }
        return out_;
    }

    /// <summary>C memory holding structs, one after the other (the work
    /// requests of a list, their SGEs): freed by Dispose.</summary>
    sealed class CArray<T> : IDisposable where T : struct
    {
        public readonly IntPtr Ptr;
        readonly int size;

        public CArray(T[] items)
        {
            size = Marshal.SizeOf(typeof(T));
            Ptr = Marshal.AllocHGlobal(size * Math.Max(1, items.Length));
            for (int i = 0; i < items.Length; i++)
                Marshal.StructureToPtr(items[i], At(i), false);
        }

        public IntPtr At(int i)
        {
            return Ptr + size * i;
        }

        public void Dispose()
        {
            Marshal.FreeHGlobal(Ptr);
        }
    }

    /// <summary>The client's objects: made on the id's context, the QP on them.</summary>
    sealed class Side
    {
        public readonly IntPtr id, pd, channel, scq, rcq, srq, qp;
        public readonly uint qpNum;
        // C memory (AllocHGlobal: never moved nor collected), freed at the teardown.
        public readonly IntPtr recv = Marshal.AllocHGlobal(SLOTS * SLOT), send = Marshal.AllocHGlobal(5 * SLOT),
            atom = Marshal.AllocHGlobal(24);
        public readonly IntPtr recvMr, sendMr, atomMr;

        public Side(IntPtr id)
        {
            this.id = id;
            IntPtr ctx = At<rdma_cm_id>(id).verbs;
            pd = Rdma.ibv_alloc_pd(ctx);
            channel = Rdma.ibv_create_comp_channel(ctx);
            scq = Rdma.ibv_create_cq(ctx, 16, IntPtr.Zero, IntPtr.Zero, 0);
            rcq = Rdma.ibv_create_cq(ctx, 16, new IntPtr(CQ_CONTEXT), channel, 0);
            var srqAttr = new ibv_srq_init_attr { attr = new ibv_srq_attr { max_wr = SLOTS, max_sge = 1 } };
            srq = Rdma.ibv_create_srq(pd, ref srqAttr);
            var attr = new ibv_qp_init_attr {
                send_cq = scq, recv_cq = rcq, srq = srq,
                cap = new ibv_qp_cap { max_send_wr = 8, max_send_sge = 2 }, qp_type = (uint)Rdma.IBV_QPT_RC,
            };
            Rdma.rdma_create_qp(id, pd, ref attr);
            qp = At<rdma_cm_id>(id).qp;
            var q = At<ibv_qp>(qp);
            Check(q.send_cq == scq && q.recv_cq == rcq && q.srq == srq, "the id's QP is not on the CQs and the SRQ given");
            qpNum = q.qp_num;
            Marshal.Copy(new byte[SLOTS * SLOT], 0, recv, SLOTS * SLOT);
            Marshal.Copy(new byte[5 * SLOT], 0, send, 5 * SLOT);
            Marshal.Copy(new byte[24], 0, atom, 24);
            Check(atom.ToInt64() % 8 == 0, "the atomics' words are not 8-byte aligned");
            recvMr = Reg(recv, SLOTS * SLOT, Rdma.IBV_ACCESS_LOCAL_WRITE);
            sendMr = Reg(send, 5 * SLOT, 0);
            atomMr = Reg(atom, 24, Rdma.IBV_ACCESS_LOCAL_WRITE | Rdma.IBV_ACCESS_REMOTE_ATOMIC | Rdma.IBV_ACCESS_REMOTE_READ);
            // The SRQ's receives, one list: slot i, wr_id 0x100 + i.
            using (var sges = new CArray<ibv_sge>(Enumerable.Range(0, SLOTS).Select(i => new ibv_sge {
                       addr = (ulong)(recv.ToInt64() + SLOT * i), length = SLOT, lkey = Lkey(recvMr) }).ToArray())) {
                var wrs = Enumerable.Range(0, SLOTS).Select(i => new ibv_recv_wr {
                    wr_id = (ulong)(0x100 + i), sg_list = sges.At(i), num_sge = 1 }).ToArray();
                using (var list = new CArray<ibv_recv_wr>(wrs)) {
                    for (int i = 0; i + 1 < SLOTS; i++)
                        Marshal.WriteIntPtr(list.At(i), (int)Marshal.OffsetOf(typeof(ibv_recv_wr), "next"), list.At(i + 1));
                    var first = At<ibv_recv_wr>(list.Ptr);
                    IntPtr bad;
                    Rdma.ibv_post_srq_recv(srq, ref first, out bad);
                }
            }
        }

        IntPtr Reg(IntPtr buf, int len, int access)
        {
            return Rdma.ibv_reg_mr_iova2(pd, buf, (ulong)len, (ulong)buf.ToInt64(), (uint)access);
        }

        public static uint Lkey(IntPtr mr)
        {
            return At<ibv_mr>(mr).lkey;
        }

        /// <summary>Posts a list of send work requests (written into C memory,
        /// joined by next) in one ibv_post_send; then their completions.</summary>
        public ibv_wc[] Post(ibv_send_wr[] wrs)
        {
            using (var list = new CArray<ibv_send_wr>(wrs)) {
                for (int i = 0; i + 1 < wrs.Length; i++)
                    Marshal.WriteIntPtr(list.At(i), (int)Marshal.OffsetOf(typeof(ibv_send_wr), "next"), list.At(i + 1));
                var first = At<ibv_send_wr>(list.Ptr);
                IntPtr bad;
                Rdma.ibv_post_send(qp, ref first, out bad);
            }
            return Completions(scq, wrs.Length);
        }

        /// <summary>The receive CQ's next event on its completion channel:
        /// checked, acknowledged, the CQ armed again (solicitedOnly), then
        /// polled: the completions, up to 8 in one ibv_poll_cq.</summary>
        public ibv_wc[] NextEvent(int solicitedOnly)
        {
            Readable(At<ibv_comp_channel>(channel).fd, "no completion event within the wait");
            IntPtr cq, context;
            Rdma.ibv_get_cq_event(channel, out cq, out context);
            Check(cq == rcq && context.ToInt64() == CQ_CONTEXT, "the event is not the receive CQ's");
            Rdma.ibv_ack_cq_events(cq, 1);
            Rdma.ibv_req_notify_cq(cq, solicitedOnly);
            var wc = new ibv_wc[8];
            return wc.Take(Rdma.ibv_poll_cq(cq, 8, wc)).ToArray();
        }

        /// <summary>In the order the objects depend on each other (every CQ
        /// event acknowledged first: ibv_destroy_cq waits for it).</summary>
        public void Teardown()
        {
            Rdma.rdma_destroy_qp(id);
            Rdma.ibv_destroy_srq(srq);
            Rdma.ibv_destroy_cq(scq);
            Rdma.ibv_destroy_cq(rcq);
            Rdma.ibv_destroy_comp_channel(channel);
            foreach (var mr in new[] { recvMr, sendMr, atomMr })
                Rdma.ibv_dereg_mr(mr);
            Rdma.ibv_dealloc_pd(pd);
            Rdma.rdma_destroy_id(id);
            foreach (var p in new[] { recv, send, atom })
                Marshal.FreeHGlobal(p);
        }
    }

    static int Main(string[] args)
    {
        if (args.Length != 3 || args[0] != "client") {
            Console.Error.WriteLine("usage: Verbs client ADDR PORT");
            return 2;
        }
        try {
            Exchange(args[1], args[2]);
        } catch (RdmaVerbsException e) {
            Fail(e.Message);
        }
        Console.WriteLine("verbs: PASS role=client completions=15 bytes=248");
        return 0;
    }

    static void Exchange(string addr, string port)
    {
        // 0. Set up: an event channel and an id, the address and route
        // resolved, the objects and the QP, the SRQ's receives, the receive
        // CQ armed; connect.
        var hints = new rdma_addrinfo { ai_port_space = Rdma.RDMA_PS_TCP };
        IntPtr res, id;
        Rdma.rdma_getaddrinfo(addr, port, ref hints, out res);
        IntPtr channel = Rdma.rdma_create_event_channel();
        Rdma.rdma_create_id(channel, out id, IntPtr.Zero, (uint)Rdma.RDMA_PS_TCP);
        Rdma.rdma_resolve_addr(id, IntPtr.Zero, At<rdma_addrinfo>(res).ai_dst_addr, 2000);
        Event(channel, Rdma.RDMA_CM_EVENT_ADDR_RESOLVED, id);
        Rdma.rdma_resolve_route(id, 2000);
        Event(channel, Rdma.RDMA_CM_EVENT_ROUTE_RESOLVED, id);
        var s = new Side(id);
        Rdma.ibv_req_notify_cq(s.rcq, 0);
        var param = new rdma_conn_param { responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 };
        Rdma.rdma_connect(id, ref param);
        Event(channel, Rdma.RDMA_CM_EVENT_ESTABLISHED, id);

        // 1. Keys, the first event; the CQ armed again for solicited completions.
        var wc = s.NextEvent(1);
        Check(wc.Length == 1, "the keys' event: " + wc.Length + " completions");
        Completion(wc[0], 0x100, Rdma.IBV_WC_RECV, SLOT, RECV, 0, s.qpNum);
        ulong word = (ulong)Marshal.ReadInt64(s.recv, 0), initial = (ulong)Marshal.ReadInt64(s.recv, 16);
        uint rkey = (uint)Marshal.ReadInt32(s.recv, 8);
        Check(initial == INITIAL, "the word's value 0x" + initial.ToString("x") + " is not the initial one");

        // 2. Atomics, one list: fetch-and-add, compare-and-swap, a stale one.
        uint atomKey = Side.Lkey(s.atomMr);
        using (var sges = new CArray<ibv_sge>(Enumerable.Range(0, 3).Select(k => new ibv_sge {
                   addr = (ulong)(s.atom.ToInt64() + 8 * k), length = 8, lkey = atomKey }).ToArray())) {
            ulong[] swaps = { 0, SWAP, STALE_SWAP };
            var wrs = new ibv_send_wr[3];
            for (int k = 0; k < 3; k++) {
                wrs[k] = new ibv_send_wr {
                    wr_id = (ulong)(0x700 + k), sg_list = sges.At(k), num_sge = 1,
                    send_flags = (uint)Rdma.IBV_SEND_SIGNALED,
                    opcode = (uint)(k > 0 ? Rdma.IBV_WR_ATOMIC_CMP_AND_SWP : Rdma.IBV_WR_ATOMIC_FETCH_AND_ADD),
                };
                wrs[k].wr.atomic = new ibv_send_wr_wr_atomic {
                    remote_addr = word, rkey = rkey, compare_add = k > 0 ? INITIAL + ADD : ADD, swap = swaps[k] };
            }
            wc = s.Post(wrs);
        }
        int[] atomicOps = { Rdma.IBV_WC_FETCH_ADD, Rdma.IBV_WC_COMP_SWAP, Rdma.IBV_WC_COMP_SWAP };
        for (int k = 0; k < 3; k++)
            Completion(wc[k], (ulong)(0x700 + k), atomicOps[k], 8, 0, 0, s.qpNum);
        var old = Enumerable.Range(0, 3).Select(k => (ulong)Marshal.ReadInt64(s.atom, 8 * k)).ToArray();
        Check(old.SequenceEqual(new[] { INITIAL, INITIAL + ADD, SWAP }), "the atomics' old values " + Hex(old));

        // 3. Four sends into the server's SRQ, one list, two SGEs each,
        // immediate data 0xc0de0000 + k (network order).
        for (int k = 0; k < 4; k++)
            for (int j = 0; j < SLOT; j++)
                Marshal.WriteByte(s.send, SLOT * k + j, (byte)(0xc1 + 7 * k + j));
        uint sendKey = Side.Lkey(s.sendMr);
        using (var sges = new CArray<ibv_sge>(Enumerable.Range(0, 8).Select(i => new ibv_sge {
                   addr = (ulong)(s.send.ToInt64() + SLOT * (i / 2) + (i % 2) * 16),
                   length = (uint)(i % 2 == 0 ? 16 : SLOT - 16), lkey = sendKey }).ToArray())) {
            var wrs = Enumerable.Range(0, 4).Select(k => new ibv_send_wr {
                wr_id = (ulong)(0x300 + k), sg_list = sges.At(2 * k), num_sge = 2,
                opcode = (uint)Rdma.IBV_WR_SEND_WITH_IMM, send_flags = (uint)Rdma.IBV_SEND_SIGNALED,
                imm_data = Swap32(0xc0de0000 + (uint)k) }).ToArray();
            wc = s.Post(wrs);
        }
        for (int k = 0; k < 4; k++)
            Completion(wc[k], (ulong)(0x300 + k), Rdma.IBV_WC_SEND, SLOT, (uint)Rdma.IBV_WC_WITH_IMM, 0, s.qpNum);

        // 4. The server's five, the event at the last (solicited): five at once.
        wc = s.NextEvent(0);
        Check(wc.Length == 5, "the solicited event: " + wc.Length + " completions in one poll, not 5");
        for (int k = 0; k < 5; k++) {
            int length = SERVER_LENS[k];
            Completion(wc[k], (ulong)(0x101 + k), Rdma.IBV_WC_RECV, length, RECV | (uint)Rdma.IBV_WC_WITH_IMM,
                       0x5e4d0000 + (uint)k, s.qpNum);
            var got = new byte[length];
            Marshal.Copy(s.recv + SLOT * (1 + k), got, 0, length);
            Check(got.Select((b, j) => b == (byte)(0x51 + 7 * k + j)).All(x => x), "message " + k + ": its bytes differ");
        }

        // 5. DONE, and the server's DONE with the word's last value.
        var done = new byte[SLOT];
        "DONE".Select(c => (byte)c).ToArray().CopyTo(done, 0);
        Marshal.Copy(done, 0, s.send, SLOT);
        using (var sge = new CArray<ibv_sge>(new[] { new ibv_sge { addr = (ulong)s.send.ToInt64(), length = SLOT, lkey = sendKey } })) {
            var wrs = new[] { new ibv_send_wr { wr_id = 0x500, sg_list = sge.Ptr, num_sge = 1,
                                                opcode = (uint)Rdma.IBV_WR_SEND, send_flags = (uint)Rdma.IBV_SEND_SIGNALED } };
            Completion(s.Post(wrs)[0], 0x500, Rdma.IBV_WC_SEND, SLOT, 0, 0, s.qpNum);
        }
        wc = s.NextEvent(0);
        Check(wc.Length == 1, "the DONE event: " + wc.Length + " completions");
        Completion(wc[0], 0x106, Rdma.IBV_WC_RECV, SLOT, RECV, 0, s.qpNum);
        var tail = new byte[16];
        Marshal.Copy(s.recv + 6 * SLOT, tail, 0, 16);
        ulong last = BitConverter.ToUInt64(tail, 8);
        Check(tail.Take(4).SequenceEqual(done.Take(4)) && last == SWAP, "no DONE with the word's value: 0x" + last.ToString("x"));

        // 6. Teardown.
        Rdma.rdma_disconnect(id);
        Event(channel, Rdma.RDMA_CM_EVENT_DISCONNECTED, id);
        s.Teardown();
        Rdma.rdma_destroy_event_channel(channel);
        Rdma.rdma_freeaddrinfo(res);
    }
}
