// The RC exchange of bindings/rc-protocol.md from C#, with the RdmaVerbs
// binding (P/Invoke, Mono). Usage: mono Rc.exe server|client ADDR PORT
using System;
using System.Linq;
using System.Net;
using System.Runtime.InteropServices;
using RdmaVerbs;

static class Rc
{
    const int SIZE = 64;
    static string role;

    static void Fail(string what)
    {
        Console.Error.WriteLine("rc " + role + ": " + what);
        Environment.Exit(1);
    }

    static IntPtr Ctx(long v)
    {
        return new IntPtr(v);
    }

    static byte[] Pattern(int b)
    {
        return Enumerable.Range(0, SIZE).Select(j => (byte)(b + j)).ToArray();
    }

    static byte[] Read(IntPtr p, int offset, int n)
    {
        var b = new byte[n];
        Marshal.Copy(p + offset, b, 0, n);
        return b;
    }

    static void Write(IntPtr p, byte[] b)
    {
        Marshal.Copy(b, 0, p, b.Length);
    }

    static void Comp(IntPtr id, bool recv, ulong wrId, int opcode, int len)
    {
        var wc = new ibv_wc();
        int r = recv ? Rdma.rdma_get_recv_comp(id, ref wc) : Rdma.rdma_get_send_comp(id, ref wc);
        if (r != 1 || wc.wr_id != wrId || wc.status != Rdma.IBV_WC_SUCCESS || wc.opcode != opcode ||
            (len >= 0 && wc.byte_len != len))
            Fail(string.Format("completion: wr_id {0:x} status {1} opcode {2} byte_len {3}; want {4:x} {5} {6}",
                               wc.wr_id, wc.status, wc.opcode, wc.byte_len, wrId, opcode, len));
    }

    static void CheckAddr(IntPtr sa, string addr, int port, string which)
    {
        var sin = (sockaddr_in)Marshal.PtrToStructure(sa, typeof(sockaddr_in));
        string got = new IPAddress(sin.sin_addr).ToString();
        int p = (ushort)IPAddress.NetworkToHostOrder((short)sin.sin_port);
        if (sin.sin_family != Rdma.AF_INET || got != addr || (port >= 0 && p != port))
            Fail(which + " address " + got + ":" + p);
    }

    static void ExpectErrno(Action call, int errno, string what)
    {
        try {
            call();
            Fail(what + ": no exception");
        } catch (RdmaVerbsException e) {
            if (e.Errno != errno)
                Fail(what + ": errno " + e.Errno + ", want " + errno);
        }
    }

    static int Main(string[] args)
    {
        if (args.Length != 3 || (args[0] != "server" && args[0] != "client")) {
            Console.Error.WriteLine("usage: Rc server|client ADDR PORT");
            return 2;
        }
        role = args[0];
        bool server = role == "server";
        string addr = args[1];
        int port = int.Parse(args[2]);
        int seed = server ? 0x51 : 0xc1, peerSeed = server ? 0xc1 : 0x51;
        try {
            Exchange(server, addr, port, seed, peerSeed);
        } catch (RdmaVerbsException e) {
            Fail(e.Message);
        }
        Console.WriteLine("rc: PASS role=" + role + " sends=4 bytes=384");
        return 0;
    }

    static void Exchange(bool server, string addr, int port, int seed, int peerSeed)
    {
        // 1. Set up.
        var hints = new rdma_addrinfo { ai_port_space = Rdma.RDMA_PS_TCP, ai_flags = server ? Rdma.RAI_PASSIVE : 0 };
        IntPtr res, listen = IntPtr.Zero, id;
        Rdma.rdma_getaddrinfo(addr, port.ToString(), ref hints, out res);
        var attr = new ibv_qp_init_attr {
            cap = new ibv_qp_cap { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 2, max_recv_sge = 1 },
            qp_type = Rdma.IBV_QPT_RC, sq_sig_all = 1,
        };
        if (server) {
            Rdma.rdma_create_ep(out listen, res, IntPtr.Zero, ref attr);
            Rdma.rdma_listen(listen, 1);
            Console.WriteLine("rc: listening");
            Console.Out.Flush();
            Rdma.rdma_get_request(listen, out id);
        } else {
            Rdma.rdma_create_ep(out id, res, IntPtr.Zero, ref attr);
        }
        // 2. Memory; 3. receives.
        IntPtr recv = Marshal.AllocHGlobal(4 * SIZE), send = Marshal.AllocHGlobal(SIZE);
        IntPtr win = Marshal.AllocHGlobal(SIZE), back = Marshal.AllocHGlobal(SIZE);
        Write(win, new byte[SIZE]);
        IntPtr recvMr = Rdma.rdma_reg_msgs(id, recv, 4 * SIZE), sendMr = Rdma.rdma_reg_msgs(id, send, SIZE);
        IntPtr wmr = Rdma.rdma_reg_write(id, win, SIZE), rmr = Rdma.rdma_reg_read(id, win, SIZE);
        IntPtr backMr = Rdma.rdma_reg_msgs(id, back, SIZE);
        Func<IntPtr, ibv_mr> mr = p => (ibv_mr)Marshal.PtrToStructure(p, typeof(ibv_mr));
        for (int i = 0; i < 4; i++)
            Rdma.rdma_post_recv(id, Ctx(0x100 + i), recv + SIZE * i, SIZE, recvMr);
        // 4. Connect.
        var param = new rdma_conn_param { responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 };
        if (server)
            Rdma.rdma_accept(id, ref param);
        else
            Rdma.rdma_connect(id, ref param);
        // 5. Keys.
        var keys = new byte[SIZE];
        BitConverter.GetBytes(win.ToInt64()).CopyTo(keys, 0);
        BitConverter.GetBytes(mr(wmr).rkey).CopyTo(keys, 8);
        BitConverter.GetBytes(mr(rmr).rkey).CopyTo(keys, 12);
        Write(send, keys);
        Rdma.rdma_post_send(id, Ctx(0x200), send, SIZE, sendMr, 0);
        Comp(id, false, 0x200, Rdma.IBV_WC_SEND, -1);
        Comp(id, true, 0x100, Rdma.IBV_WC_RECV, SIZE);
        byte[] peer = Read(recv, 0, 16);
        ulong peerAddr = BitConverter.ToUInt64(peer, 0);
        uint peerWkey = BitConverter.ToUInt32(peer, 8), peerRkey = BitConverter.ToUInt32(peer, 12);
        // 6. Messages, over two SGEs.
        uint lkey = mr(sendMr).lkey;
        ulong b = (ulong)send.ToInt64();
        var sgl = new[] {
            new ibv_sge { addr = b, length = 16, lkey = lkey },
            new ibv_sge { addr = b + 16, length = 48, lkey = lkey },
        };
        for (int k = 0; k < 2; k++) {
            Write(send, Pattern(seed + 7 * k));
            Rdma.rdma_post_sendv(id, Ctx(0x300 + k), sgl, 2, 0);
            Comp(id, false, (ulong)(0x300 + k), Rdma.IBV_WC_SEND, -1);
        }
        for (int k = 0; k < 2; k++) {
            Comp(id, true, (ulong)(0x101 + k), Rdma.IBV_WC_RECV, SIZE);
            if (!Read(recv, SIZE * (1 + k), SIZE).SequenceEqual(Pattern(peerSeed + 7 * k)))
                Fail("message " + k + " differs");
        }
        // 7. RDMA write, and read back.
        byte[] written = Pattern(seed ^ 0xa5);
        Write(send, written);
        Rdma.rdma_post_write(id, Ctx(0x400), send, SIZE, sendMr, 0, peerAddr, peerWkey);
        Comp(id, false, 0x400, Rdma.IBV_WC_RDMA_WRITE, -1);
        Write(back, new byte[SIZE]);
        Rdma.rdma_post_read(id, Ctx(0x401), back, SIZE, backMr, 0, peerAddr, peerRkey);
        Comp(id, false, 0x401, Rdma.IBV_WC_RDMA_READ, SIZE);
        if (!Read(back, 0, SIZE).SequenceEqual(written))
            Fail("the bytes read back differ");
        // 8. A bounded wait that times out; 9. refused input.
        var wc = new ibv_wc();
        ExpectErrno(() => Rdma.rdma_get_send_comp_timeout(id, ref wc, 100), Rdma.ETIMEDOUT, "rdma_get_send_comp_timeout");
        ExpectErrno(() => Rdma.rdma_post_send(IntPtr.Zero, IntPtr.Zero, send, SIZE, sendMr, 0), Rdma.EINVAL,
                    "rdma_post_send(NULL)");
        ExpectErrno(() => Rdma.rdma_get_local_addr(IntPtr.Zero), Rdma.EINVAL, "rdma_get_local_addr(NULL)");
        // 10. Addresses.
        CheckAddr(Rdma.rdma_get_local_addr(id), addr, server ? port : -1, "local");
        CheckAddr(Rdma.rdma_get_peer_addr(id), addr, server ? -1 : port, "peer");
        // 11. Done.
        var done = new byte[SIZE];
        "DONE".Select(c => (byte)c).ToArray().CopyTo(done, 0);
        Write(send, done);
        Rdma.rdma_post_send(id, Ctx(0x500), send, SIZE, sendMr, 0);
        Comp(id, false, 0x500, Rdma.IBV_WC_SEND, -1);
        Comp(id, true, 0x103, Rdma.IBV_WC_RECV, SIZE);
        if (!Read(recv, 3 * SIZE, 4).SequenceEqual(done.Take(4)))
            Fail("no DONE");
        // 12. Teardown.
        Rdma.rdma_disconnect(id);
        foreach (var m in new[] { recvMr, sendMr, wmr, rmr, backMr })
            Rdma.rdma_dereg_mr(m);
        Rdma.rdma_destroy_ep(id);
        if (server)
            Rdma.rdma_destroy_ep(listen);
        Rdma.rdma_freeaddrinfo(res);
        foreach (var p in new[] { recv, send, win, back })
            Marshal.FreeHGlobal(p);
    }
}
