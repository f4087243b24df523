// The raw layer's data path on the recording provider (bindings/recorder,
// RDMAVERBS_RECORDER), as C gets it: the vectored posts checked SGE by SGE,
// and the RDMAVERBS_1.3 functions (ibv_post_send of a list with the wr
// union, ibv_post_srq_recv, ibv_poll_cq into an ibv_wc[],
// ibv_req_notify_cq, each failure convention; ibv_wr_set_sge_list and
// ibv_advise_mr with a plain array; an array of 0 passed as an array), the
// ports in both orders, the completion statuses. Run by Test.
using System;
using System.Runtime.InteropServices;
using RdmaVerbs;

static class RawPostsTest
{
    static void Check(bool ok, string what)
    {
        Test.Check(ok, what);
    }

    static int ErrnoOf(Action a)
    {
        return Test.ErrnoOf(a);
    }

    [DllImport("libc.so.6")]
    static extern IntPtr dlopen(string file, int mode);

    [DllImport("libc.so.6")]
    static extern IntPtr dlsym(IntPtr handle, string name);

    delegate void RecorderFail(int err);

    // The recording provider: a fake id whose QP records each work request.
    delegate IntPtr RecorderId();
    delegate int RecorderPosts();
    delegate IntPtr RecorderLast();

    /// <summary>The recording provider's handle (loaded once, then found).</summary>
    static IntPtr Recorder()
    {
        return dlopen(Environment.GetEnvironmentVariable("RDMAVERBS_RECORDER"), 2 /* RTLD_NOW */);
    }

    static T Symbol<T>(IntPtr lib, string name) where T : class
    {
        IntPtr p = dlsym(lib, name);
        if (p == IntPtr.Zero)
            throw new EntryPointNotFoundException(name);
        return Marshal.GetDelegateForFunctionPointer(p, typeof(T)) as T;
    }

    static ibv_sge Sge(ulong addr, uint length, uint lkey)
    {
        return new ibv_sge { addr = addr, length = length, lkey = lkey };
    }

    const string SA = " sge=0x1000:0x10:0x11";
    const string SB = " sge=0x8000000000002000:0x80000030:0x80000022";
    const string SC = " sge=0x3000:0x40:0x33";

    internal static void Vectored()
    {
        IntPtr lib = Recorder();
        Check(lib != IntPtr.Zero, "RDMAVERBS_RECORDER loads");
        var recId = Symbol<RecorderId>(lib, "recorder_id");
        var posts = Symbol<RecorderPosts>(lib, "recorder_posts");
        var last = Symbol<RecorderLast>(lib, "recorder_last");
        Action<int, string, string> recorded = (r, want, what) => {
            string got = Marshal.PtrToStringAnsi(last());
            Check(r == 0 && got == want, what + (got == want ? "" : ": recorded '" + got + "'"));
        };
        IntPtr id = recId();
        ibv_sge a = Sge(0x1000, 0x10, 0x11), b = Sge(0x8000000000002000, 0x80000030, 0x80000022),
            c = Sge(0x3000, 0x40, 0x33);
        var sgl = new[] { a, b, c };
        recorded(Rdma.rdma_post_sendv(id, new IntPtr(0x300), sgl, 3, Rdma.IBV_SEND_SIGNALED),
                 "send wr_id=0x300 flags=0x2" + SA + SB + SC, "rdma_post_sendv(new[] { a, b, c }, 3): every SGE");
        recorded(Rdma.rdma_post_recvv(id, new IntPtr(0x301), sgl, 2),
                 "recv wr_id=0x301" + SA + SB, "rdma_post_recvv(new[] { a, b, c }, 2): the first two SGEs");
        recorded(Rdma.rdma_post_readv(id, new IntPtr(0x302), new[] { b, c }, 2, 0, 0xfedc000000001000, 0x80000044),
                 "read wr_id=0x302 flags=0x0 remote=0xfedc000000001000 rkey=0x80000044" + SB + SC,
                 "rdma_post_readv(new[] { b, c }, 2): every SGE, the remote address and key");
        recorded(Rdma.rdma_post_writev(id, new IntPtr(0x303), sgl, 3, Rdma.IBV_SEND_SIGNALED | Rdma.IBV_SEND_FENCE,
                                       0xfedc000000002000, 0x55),
                 "write wr_id=0x303 flags=0x3 remote=0xfedc000000002000 rkey=0x55" + SA + SB + SC,
                 "rdma_post_writev(new[] { a, b, c }, 3): every SGE");
        Check(posts() == 4, "4 work requests posted");
        string refused = "no exception";
        try {
            Rdma.rdma_post_sendv(id, new IntPtr(0x304), sgl, 4, 0);
        } catch (ArgumentException e) {
            refused = e.Message.Split('\n')[0];
        }
        Check(refused == "rdma_post_sendv: nsge is 4 but sgl has 3 elements" && posts() == 4,
              "rdma_post_sendv(3 SGEs, 4): ArgumentException, nothing posted (" + refused + ")");
        Check(Rdma.src_port(id) == 18577 && Rdma.dst_port(id) == 50000,
              "src_port, dst_port: the ports in host order, 18577 and 50000");
        // x86-64: the network-order value as a little-endian integer
        Check(Rdma.rdma_get_src_port(id) == 0x9148 && Rdma.rdma_get_dst_port(id) == 0x50c3,
              "rdma_get_src_port, rdma_get_dst_port: network order, 0x9148 and 0x50c3");
        Check(Rdma.ibv_wc_status_str(Rdma.IBV_WC_LOC_PROT_ERR) == "local protection error" &&
              Rdma.ibv_wc_status_str(Rdma.IBV_WC_SUCCESS) == "success" && Rdma.IBV_WC_TM_RNDV_INCOMPLETE == 23,
              "ibv_wc_status_str: 'local protection error', 'success'; IBV_WC_TM_RNDV_INCOMPLETE is 23");
    }

    const string SD = " sge=0x4000:0x8:0x44";

    static ibv_wc[] Completions()
    {
        var wc = new ibv_wc[4];
        wc[3].wr_id = 0xdead;
        return wc;
    }

    static bool AsRecorded(ibv_wc[] wc)
    {
        int[] status = { Rdma.IBV_WC_SUCCESS, Rdma.IBV_WC_SUCCESS, Rdma.IBV_WC_REM_ACCESS_ERR };
        int[] opcode = { Rdma.IBV_WC_RECV, Rdma.IBV_WC_COMP_SWAP, Rdma.IBV_WC_FETCH_ADD };
        bool ok = true;
        for (uint i = 0; i < 3; i++) {
            ibv_wc w = wc[i];
            bool same = w.wr_id == 0x5000 + i && w.status == status[i] && w.opcode == opcode[i] &&
                w.vendor_err == 0x100 + i && w.byte_len == 0x40 + i && w.imm_data == 0xa0b0c0d0 + i &&
                w.qp_num == 0x1100 + i && w.src_qp == 0x2200 + i &&
                w.wc_flags == (i == 0 ? Rdma.IBV_WC_WITH_IMM : 0) && w.pkey_index == 0x30 + i &&
                w.slid == 0x4400 + i && w.sl == 1 + i && w.dlid_path_bits == 0x50 + i;
            if (!same)
                Console.WriteLine("csharp: completion " + i + ": wr_id " + w.wr_id + " status " + w.status);
            ok &= same;
        }
        return ok && wc[3].wr_id == 0xdead && wc[3].status == 0 && wc[3].byte_len == 0;
    }

    internal static void Verbs13()
    {
        IntPtr lib = Recorder();
        Symbol<RecorderId>(lib, "recorder_id")();
        IntPtr qp = Symbol<RecorderId>(lib, "recorder_qp")(), srq = Symbol<RecorderId>(lib, "recorder_srq")(),
            cq = Symbol<RecorderId>(lib, "recorder_cq")();
        var fail = Symbol<RecorderFail>(lib, "recorder_fail");
        var posts = Symbol<RecorderPosts>(lib, "recorder_posts");
        var last = Symbol<RecorderLast>(lib, "recorder_last");
        Action<int, string, string> recorded = (r, want, what) => {
            string got = Marshal.PtrToStringAnsi(last());
            Check(r == 0 && got == want, what + (got == want ? "" : ": recorded '" + got + "'"));
        };
        // The SGEs and the list's other work requests in C memory.
        int sgeSize = Marshal.SizeOf(typeof(ibv_sge)), wrSize = Marshal.SizeOf(typeof(ibv_send_wr));
        IntPtr sgl = Marshal.AllocHGlobal(4 * sgeSize), rest = Marshal.AllocHGlobal(2 * wrSize);
        var sges = new[] { Sge(0x1000, 0x10, 0x11), Sge(0x8000000000002000, 0x80000030, 0x80000022),
                           Sge(0x3000, 0x40, 0x33), Sge(0x4000, 8, 0x44) };
        for (int i = 0; i < 4; i++)
            Marshal.StructureToPtr(sges[i], IntPtr.Add(sgl, i * sgeSize), false);
        // Three work requests joined by next: a send with immediate data over
        // two SGEs, a compare-and-swap and a fetch-and-add (the wr union's
        // atomic member).
        var cas = new ibv_send_wr { wr_id = 0x601, next = IntPtr.Add(rest, wrSize), sg_list = IntPtr.Add(sgl, 2 * sgeSize),
                                    num_sge = 1, opcode = (uint) Rdma.IBV_WR_ATOMIC_CMP_AND_SWP,
                                    send_flags = (uint) Rdma.IBV_SEND_FENCE };
        cas.wr.atomic = new ibv_send_wr_wr_atomic { remote_addr = 0xfedc000000003000, rkey = 0x80000066,
                                                    compare_add = 0x1111222233334444, swap = 0x5555666677778888 };
        var fadd = new ibv_send_wr { wr_id = 0x602, sg_list = IntPtr.Add(sgl, 3 * sgeSize), num_sge = 1,
                                     opcode = (uint) Rdma.IBV_WR_ATOMIC_FETCH_AND_ADD };
        fadd.wr.atomic.remote_addr = 0xfedc000000003008;
        fadd.wr.atomic.rkey = 0x77;
        fadd.wr.atomic.compare_add = 0x8000000000000001;
        Marshal.StructureToPtr(cas, rest, false);
        Marshal.StructureToPtr(fadd, IntPtr.Add(rest, wrSize), false);
        var send = new ibv_send_wr { wr_id = 0x600, next = rest, sg_list = sgl, num_sge = 2,
                                     opcode = (uint) Rdma.IBV_WR_SEND_WITH_IMM,
                                     send_flags = (uint) Rdma.IBV_SEND_SIGNALED, imm_data = 0x0a0b0c0d };
        IntPtr bad;
        recorded(Rdma.ibv_post_send(qp, ref send, out bad),
                 "send_imm wr_id=0x600 flags=0x2 imm=0xa0b0c0d" + SA + SB +
                 " | cas wr_id=0x601 flags=0x1 remote=0xfedc000000003000 rkey=0x80000066" +
                 " compare=0x1111222233334444 swap=0x5555666677778888" + SC +
                 " | fadd wr_id=0x602 flags=0x0 remote=0xfedc000000003008 rkey=0x77 add=0x8000000000000001" + SD,
                 "ibv_post_send(3 work requests: send with imm over 2 SGEs, cas, fetch-and-add): every field");
        Check(posts() == 1, "ibv_post_send: one post");
        Check(cas.wr.rdma.remote_addr == 0xfedc000000003000 && cas.wr.rdma.rkey == 0x33334444,
              "the wr union's rdma member shares atomic's first bytes; its rkey is not atomic's");
        // Failures: the provider's errno value, *bad_wr its first request; NULL refused.
        fail(Rdma.ENOMEM);
        Check(ErrnoOf(() => Rdma.ibv_post_send(qp, ref fadd, out bad)) == Rdma.ENOMEM && posts() == 1,
              "ibv_post_send failing with ENOMEM: RdmaVerbsException ENOMEM, nothing posted");
        fail(Rdma.ENOMEM);
        Check(Native.ibv_post_send(qp, ref fadd, out bad) == Rdma.ENOMEM && bad != IntPtr.Zero,
              "raw ibv_post_send failing: ENOMEM returned, *bad_wr set");
        Check(ErrnoOf(() => Rdma.ibv_post_send(IntPtr.Zero, ref fadd, out bad)) == Rdma.EINVAL,
              "ibv_post_send(NULL, ...): EINVAL");
        // Receives on the SRQ, a list of two.
        IntPtr second = Marshal.AllocHGlobal(Marshal.SizeOf(typeof(ibv_recv_wr)));
        Marshal.StructureToPtr(new ibv_recv_wr { wr_id = 0x621, sg_list = IntPtr.Add(sgl, sgeSize), num_sge = 2 },
                               second, false);
        var first = new ibv_recv_wr { wr_id = 0x620, next = second, sg_list = sgl, num_sge = 1 };
        recorded(Rdma.ibv_post_srq_recv(srq, ref first, out bad), "srq_recv wr_id=0x620" + SA + " | srq_recv wr_id=0x621" + SB + SC,
                 "ibv_post_srq_recv(a list of 2): every request and SGE");
        // Completions: 3 of 4 filled, into an ibv_wc[].
        var wc = Completions();
        int polled = Rdma.ibv_poll_cq(cq, 4, wc);
        Check(polled == 3 && AsRecorded(wc), "ibv_poll_cq(cq, 4, ibv_wc[4]): 3, every field of each, the 4th untouched");
        string refused = "no exception";
        try {
            Rdma.ibv_poll_cq(cq, 5, wc);
        } catch (ArgumentException e) {
            refused = e.Message.Split('\n')[0];
        }
        Check(refused == "ibv_poll_cq: num_entries is 5 but wc has 4 elements",
              "ibv_poll_cq(5 of an ibv_wc[4]): ArgumentException (" + refused + ")");
        fail(Rdma.EIO);
        Check(ErrnoOf(() => Rdma.ibv_poll_cq(cq, 4, Completions())) == Rdma.EIO,
              "ibv_poll_cq failing (-1, errno EIO): RdmaVerbsException EIO");
        recorded(Rdma.ibv_req_notify_cq(cq, 1), "notify solicited_only=1", "ibv_req_notify_cq(cq, 1)");
        Check(ErrnoOf(() => Rdma.ibv_req_notify_cq(IntPtr.Zero, 0)) == Rdma.EINVAL, "ibv_req_notify_cq(NULL): EINVAL");
        Check(Rdma.ibv_inc_rkey(0x123456ff) == 0x12345600 &&
              Rdma.rdma_event_str((uint) Rdma.RDMA_CM_EVENT_ESTABLISHED) == "RDMA_CM_EVENT_ESTABLISHED",
              "ibv_inc_rkey, rdma_event_str");
        Marshal.FreeHGlobal(second);
        Marshal.FreeHGlobal(rest);
        Marshal.FreeHGlobal(sgl);
    }

    // The two other functions of an SGE array, with a plain array:
    // ibv_wr_set_sge_list on the provider's extended QP, ibv_advise_mr on its
    // PD, each SGE as the provider got it.
    internal static void SgeLists()
    {
        IntPtr lib = Recorder();
        Symbol<RecorderId>(lib, "recorder_id")();
        IntPtr qpx = Symbol<RecorderId>(lib, "recorder_qp_ex")(), pd = Symbol<RecorderId>(lib, "recorder_pd")();
        var posts = Symbol<RecorderPosts>(lib, "recorder_posts");
        var last = Symbol<RecorderLast>(lib, "recorder_last");
        Action<int, string, string> recorded = (r, want, what) => {
            string got = Marshal.PtrToStringAnsi(last());
            Check(r == 0 && got == want, what + (got == want ? "" : ": recorded '" + got + "'"));
        };
        ibv_sge a = Sge(0x1000, 0x10, 0x11), b = Sge(0x8000000000002000, 0x80000030, 0x80000022),
            c = Sge(0x3000, 0x40, 0x33);
        Rdma.ibv_wr_set_sge_list(qpx, 3, new[] { a, b, c });
        recorded(0, "sge_list" + SA + SB + SC, "ibv_wr_set_sge_list(qpx, 3, new[] { a, b, c }): every SGE");
        Rdma.ibv_wr_set_sge_list(qpx, 2, new[] { c, a, b });
        recorded(0, "sge_list" + SC + SA, "ibv_wr_set_sge_list(qpx, 2, new[] { c, a, b }): the first two SGEs");
        recorded(Rdma.ibv_advise_mr(pd, 1 /* IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE */, 1 /* IBV_ADVISE_MR_FLAG_FLUSH */,
                                    new[] { b, c, a }, 3),
                 "advise advice=0x1 flags=0x1" + SB + SC + SA,
                 "ibv_advise_mr(pd, PREFETCH_WRITE, FLUSH, new[] { b, c, a }, 3): every SGE");
        Check(posts() == 3, "3 calls recorded");
        string refused = "no exception";
        try {
            Rdma.ibv_wr_set_sge_list(qpx, 3, new[] { a, b });
        } catch (ArgumentException e) {
            refused = e.Message.Split('\n')[0];
        }
        Check(refused == "ibv_wr_set_sge_list: num_sge is 3 but sg_list has 2 elements" && posts() == 3,
              "ibv_wr_set_sge_list(2 SGEs, 3): ArgumentException, nothing called (" + refused + ")");
    }

    // An array given with a count of 0 is passed as an array (C gets a
    // pointer, not NULL): ibv_poll_cq's reaches the provider, which says
    // whether it got one (recorder_polled_array), and gives 0.
    internal static void EmptyArrays()
    {
        IntPtr lib = Recorder();
        Symbol<RecorderId>(lib, "recorder_id")();
        IntPtr cq = Symbol<RecorderId>(lib, "recorder_cq")();
        var polledArray = Symbol<RecorderPosts>(lib, "recorder_polled_array");
        int r = Rdma.ibv_poll_cq(cq, 0, new ibv_wc[4]);
        Check(r == 0 && polledArray() == 1,
              "ibv_poll_cq(cq, 0, new ibv_wc[4]): the provider gets the array, not NULL, and gives 0");
        r = Rdma.ibv_poll_cq(cq, 0, new ibv_wc[0]);
        Check(r == 0 && polledArray() == 1, "ibv_poll_cq(cq, 0, new ibv_wc[0]): an array too");
    }
}
