// The verbs exchange of bindings/verbs-protocol.md through the C# object API
// (RdmaVerbs' Endpoint, ProtectionDomain, MemoryRegion, ...): as the client
// against the C server ("peer verbs server"), and as the server against the
// C client ("peer verbs client"). Every object is disposed by using, in the
// order C needs, whatever happens; every wait is bounded. VERBS_PROFILE=iwarp
// in the environment: the exchange's iWARP profile (the client speaks first,
// no atomics, no immediate data, no GRH; the fields RC leaves unset not
// checked: siw does not write them).
// Usage: mono VerbsObjects.exe client|server ADDR PORT
using System;
using System.Linq;
using System.Text;
using RdmaVerbs;

static class VerbsObjects
{
    const int SLOT = 64, SLOTS = 8, WAIT_MS = 60000;
    const ulong INITIAL = 0x1122334455667788, ADD = 0x1000000000000001;
    const ulong SWAP = 0x0fedcba987654321, STALE_SWAP = 0xdeaddeaddeaddead;
    static readonly int[] SERVER_LENS = { 8, 16, 24, 32, 40 };
    static readonly bool IWARP = Environment.GetEnvironmentVariable("VERBS_PROFILE") == "iwarp";
    static readonly int GRH = IWARP ? 0 : Rdma.IBV_WC_GRH, IMM = IWARP ? 0 : Rdma.IBV_WC_WITH_IMM;
    static string role;

    /// <summary>A message with immediate data, or without on iWARP.</summary>
    static SendWork SendImm(ulong wrId, uint imm, params Sge[] sges)
    {
        return IWARP ? SendWork.Send(wrId, sges) : SendWork.SendWithImm(wrId, imm, sges);
    }

    /// <summary>The immediate data a receive carries: none on iWARP.</summary>
    static uint Imm(uint value)
    {
        return IWARP ? 0 : value;
    }

    static void Check(bool ok, string what)
    {
        if (!ok) {
            Console.Error.WriteLine("verbs " + role + ": " + what);
            Environment.Exit(1);
        }
    }

    /// <summary>One completion, every field: what verbs defines, and rxe's
    /// values where it does not (bindings/verbs-protocol.md).</summary>
    static void Completion(Completion c, ulong wrId, int opcode, int length, int flags, uint imm, QueuePair qp)
    {
        var want = IWARP
            ? new Completion(wrId, Rdma.IBV_WC_SUCCESS, opcode, length, flags, imm, qp.QpNum, 0, c.SrcQp, c.PkeyIndex,
                             c.Slid, c.Sl, c.DlidPathBits)
            : new Completion(wrId, Rdma.IBV_WC_SUCCESS, opcode, length, flags, imm, qp.QpNum, 0, 0, 0, 0, 0, 0);
        Check(c.Equals(want), c + " (" + c.StatusText + "); want " + want);
    }

    /// <summary>The objects of one side (verbs-protocol.md, "The objects"),
    /// the QP on them, the SRQ's 8 receives posted. Each is a dependent of
    /// the endpoint (made with it), which disposes them as it is disposed,
    /// in the order C needs (the QP first), whatever happened, a failure
    /// here too.</summary>
    sealed class Side
    {
        public readonly ProtectionDomain Pd;
        public readonly CompletionChannel Channel;
        public readonly CompletionQueue Scq, Rcq;
        public readonly SharedReceiveQueue Srq;
        public readonly MemoryRegion Recv, Send, Atom;
        public readonly QueuePair Qp;

        public Side(Endpoint ep)
        {
            Pd = new ProtectionDomain(ep);
            Channel = new CompletionChannel(ep);
            Scq = new CompletionQueue(ep, 16, null);
            Rcq = new CompletionQueue(ep, 16, Channel);
            Srq = new SharedReceiveQueue(Pd, SLOTS, 1);
            Recv = new MemoryRegion(Pd, new byte[SLOTS * SLOT], Rdma.IBV_ACCESS_LOCAL_WRITE);
            Send = new MemoryRegion(Pd, new byte[5 * SLOT], 0);
            Atom = new MemoryRegion(Pd, new byte[24], Rdma.IBV_ACCESS_LOCAL_WRITE | Rdma.IBV_ACCESS_REMOTE_READ
                                    | (IWARP ? Rdma.IBV_ACCESS_REMOTE_WRITE : Rdma.IBV_ACCESS_REMOTE_ATOMIC));
            Check(Atom.Address % 8 == 0, "the atomics' words are not 8-byte aligned");
            Qp = ep.CreateQp(new QpInit(Pd, Scq, Rcq) { Srq = Srq, MaxSendWr = 8, MaxSendSge = 2 });
            var q = System.Runtime.InteropServices.Marshal.PtrToStructure<ibv_qp>(Qp.Handle);
            Check(q.send_cq == Scq.Handle && q.recv_cq == Rcq.Handle && q.srq == Srq.Handle,
                  "the id's QP is not on the CQs and the SRQ given");
            Srq.PostRecv(Enumerable.Range(0, SLOTS).Select(i => new RecvWork((ulong)(0x100 + i), Recv.Sge(SLOT * i, SLOT)))
                         .ToArray());
        }

        /// <summary>Sends wrs in one list, then their completions.</summary>
        public Completion[] Post(params SendWork[] wrs)
        {
            Qp.PostSend(wrs);
            return Scq.Poll(wrs.Length, WAIT_MS);
        }

        /// <summary>The receive CQ's next event: acknowledged, the CQ armed
        /// again (solicitedOnly), then one poll of up to 8.</summary>
        /// <summary>Steps 4 and 5: the receive CQ's next event (RoCE); on
        /// iWARP its n completions by the bounded wait (siw, Linux 6.1,
        /// signals no solicited completion).</summary>
        public Completion[] Received(int n)
        {
            return IWARP ? Rcq.Poll(n, WAIT_MS) : NextEvent(false);
        }

        public Completion[] NextEvent(bool solicitedOnly)
        {
            Rcq.WaitEvent(WAIT_MS);
            Rcq.Arm(solicitedOnly);
            return Rcq.Poll(8);
        }
    }

    static ulong U64(byte[] b, int at)
    {
        return BitConverter.ToUInt64(b, at);
    }

    static void Put(byte[] b, int at, byte[] v)
    {
        Array.Copy(v, 0, b, at, v.Length);
    }

    /// <summary>Byte j of message k of a side: (seed + 7k + j) mod 256.</summary>
    static void Fill(byte[] b, int at, int len, int seed, int k)
    {
        for (int j = 0; j < len; j++)
            b[at + j] = (byte)(seed + 7 * k + j);
    }

    static bool Same(byte[] b, int at, int len, int seed, int k)
    {
        return Enumerable.Range(0, len).All(j => b[at + j] == (byte)(seed + 7 * k + j));
    }

    /// <summary>3. Four sends into the server's SRQ, two SGEs each,
    /// immediate data.</summary>
    static void ClientSends(Side s)
    {
        var sends = new SendWork[4];
        for (int k = 0; k < 4; k++) {
            Fill(s.Send.Buffer, SLOT * k, SLOT, 0xc1, k);
            sends[k] = SendImm((ulong)(0x300 + k), 0xc0de0000 + (uint)k, s.Send.Sge(SLOT * k, 16),
                               s.Send.Sge(SLOT * k + 16, SLOT - 16));
        }
        var wc = s.Post(sends);
        for (int k = 0; k < 4; k++)
            Completion(wc[k], (ulong)(0x300 + k), Rdma.IBV_WC_SEND, SLOT, IMM, 0, s.Qp);
    }

    /// <summary>1. Keys: the word's address, its rkey, its value.</summary>
    static void ServerKeys(Side s)
    {
        byte[] send = s.Send.Buffer;
        Put(send, 0, BitConverter.GetBytes(s.Atom.Address));
        Put(send, 8, BitConverter.GetBytes(s.Atom.Rkey));
        Put(send, 16, BitConverter.GetBytes(INITIAL));
        Completion(s.Post(SendWork.Send(0x200, s.Send.Sge(0, SLOT)))[0], 0x200, Rdma.IBV_WC_SEND, SLOT, 0, 0, s.Qp);
    }

    static void Client(string addr, int port)
    {
        using (var ep = Endpoint.Resolve(addr, port, WAIT_MS)) {
            var s = new Side(ep);
            s.Rcq.Arm(false);
            ep.Connect(WAIT_MS);
            if (IWARP)
                ClientSends(s);    // the client speaks first
            // 1. Keys, the first event; armed again for solicited completions.
            var wc = s.NextEvent(true);
            Check(wc.Length == 1, "the keys' event: " + wc.Length + " completions");
            Completion(wc[0], 0x100, Rdma.IBV_WC_RECV, SLOT, GRH, 0, s.Qp);
            byte[] recv = s.Recv.Buffer;
            ulong word = U64(recv, 0);
            uint rkey = BitConverter.ToUInt32(recv, 8);
            Check(U64(recv, 16) == INITIAL, "the word's value is not the initial one");
            // 2. Atomics, one list: fetch-and-add, compare-and-swap, a stale one.
            // iWARP has none: a read of the word; then a write of SWAP and a
            // read back, one list (a write completes as siw sends it: after a
            // read in one list, its completion would come first).
            byte[] atom = s.Atom.Buffer;
            if (IWARP) {
                Put(atom, 8, BitConverter.GetBytes(SWAP));
                wc = s.Post(SendWork.Read(0x700, word, rkey, s.Atom.Sge(0, 8)))
                      .Concat(s.Post(SendWork.Write(0x701, word, rkey, s.Atom.Sge(8, 8)),
                                     SendWork.Read(0x702, word, rkey, s.Atom.Sge(16, 8)))).ToArray();
                Completion(wc[0], 0x700, Rdma.IBV_WC_RDMA_READ, 8, 0, 0, s.Qp);
                Completion(wc[1], 0x701, Rdma.IBV_WC_RDMA_WRITE, 8, 0, 0, s.Qp);
                Completion(wc[2], 0x702, Rdma.IBV_WC_RDMA_READ, 8, 0, 0, s.Qp);
            } else {
                wc = s.Post(SendWork.FetchAdd(0x700, s.Atom.Sge(0, 8), word, rkey, ADD),
                            SendWork.CompareSwap(0x701, s.Atom.Sge(8, 8), word, rkey, INITIAL + ADD, SWAP),
                            SendWork.CompareSwap(0x702, s.Atom.Sge(16, 8), word, rkey, INITIAL + ADD, STALE_SWAP));
                Completion(wc[0], 0x700, Rdma.IBV_WC_FETCH_ADD, 8, 0, 0, s.Qp);
                Completion(wc[1], 0x701, Rdma.IBV_WC_COMP_SWAP, 8, 0, 0, s.Qp);
                Completion(wc[2], 0x702, Rdma.IBV_WC_COMP_SWAP, 8, 0, 0, s.Qp);
            }
            Check(U64(atom, 0) == INITIAL && U64(atom, 8) == (IWARP ? SWAP : INITIAL + ADD) && U64(atom, 16) == SWAP,
                  "the atomics' old values are not the word's");
            if (!IWARP)
                ClientSends(s);
            // 4. The server's five, the event at the solicited last: five at once.
            wc = s.Received(5);
            Check(wc.Length == 5, "the solicited event: " + wc.Length + " completions in one poll, not 5");
            for (int k = 0; k < 5; k++) {
                Completion(wc[k], (ulong)(0x101 + k), Rdma.IBV_WC_RECV, SERVER_LENS[k], GRH | IMM, Imm(0x5e4d0000 + (uint)k),
                           s.Qp);
                Check(Same(recv, SLOT * (1 + k), SERVER_LENS[k], 0x51, k), "a message byte differs");
            }
            // 5. DONE, and the server's DONE with the word's last value.
            Array.Clear(s.Send.Buffer, 0, SLOT);
            Put(s.Send.Buffer, 0, Encoding.ASCII.GetBytes("DONE"));
            Completion(s.Post(SendWork.Send(0x500, s.Send.Sge(0, SLOT)))[0], 0x500, Rdma.IBV_WC_SEND, SLOT, 0, 0, s.Qp);
            wc = s.Received(1);
            Check(wc.Length == 1, "the DONE event: " + wc.Length + " completions");
            Completion(wc[0], 0x106, Rdma.IBV_WC_RECV, SLOT, GRH, 0, s.Qp);
            Check(Encoding.ASCII.GetString(recv, 6 * SLOT, 4) == "DONE" && U64(recv, 6 * SLOT + 8) == SWAP,
                  "no DONE with the word's value");
            // 6. Disconnect; the objects are disposed by using.
            ep.Disconnect(WAIT_MS);
        }
        Console.WriteLine("verbs: PASS role=client completions=15 bytes=248");
    }

    static void Server(string addr, int port)
    {
        ulong word;
        using (var events = new EventChannel())
        using (var listener = Listener.Listen(events, addr, port, 1)) {
            Console.WriteLine("verbs: listening");
            Console.Out.Flush();
            using (var ep = listener.GetRequest(WAIT_MS)) {
                var s = new Side(ep);
                byte[] atom = s.Atom.Buffer, send = s.Send.Buffer, recv = s.Recv.Buffer;
                Put(atom, 0, BitConverter.GetBytes(INITIAL));
                ep.Accept(WAIT_MS);
                // 1. Keys (on iWARP after step 3: the client speaks first).
                if (!IWARP)
                    ServerKeys(s);
                // 3. The client's four sends into the SRQ.
                var wc = s.Rcq.Poll(4, WAIT_MS);
                for (int k = 0; k < 4; k++) {
                    Completion(wc[k], (ulong)(0x100 + k), Rdma.IBV_WC_RECV, SLOT, GRH | IMM, Imm(0xc0de0000 + (uint)k), s.Qp);
                    Check(Same(recv, SLOT * k, SLOT, 0xc1, k), "a message byte differs");
                }
                if (IWARP) {
                    ServerKeys(s);
                    // The client's write of SWAP into the word, before step 4:
                    // the five must not join the keys in its first poll (on
                    // RoCE its four sends come between).
                    var end = DateTime.UtcNow.AddMilliseconds(WAIT_MS);
                    while (U64(atom, 0) != SWAP) {
                        Check(DateTime.UtcNow < end, "the client's write of SWAP did not come within the wait");
                        System.Threading.Thread.Sleep(1);
                    }
                }
                // 4. Five sends, the last solicited: the client's event.
                var five = new SendWork[5];
                for (int k = 0; k < 5; k++) {
                    Fill(send, SLOT * k, SERVER_LENS[k], 0x51, k);
                    five[k] = SendImm((ulong)(0x300 + k), 0x5e4d0000 + (uint)k, s.Send.Sge(SLOT * k, SERVER_LENS[k]));
                }
                five[4].Solicited();
                wc = s.Post(five);
                for (int k = 0; k < 5; k++)
                    Completion(wc[k], (ulong)(0x300 + k), Rdma.IBV_WC_SEND, SERVER_LENS[k], IMM, 0, s.Qp);
                // 5. DONE: the word is the compare-and-swap's; DONE and the word back.
                Completion(s.Rcq.Poll(1, WAIT_MS)[0], 0x104, Rdma.IBV_WC_RECV, SLOT, GRH, 0, s.Qp);
                Check(Encoding.ASCII.GetString(recv, 4 * SLOT, 4) == "DONE", "no DONE");
                word = U64(atom, 0);
                Check(word == SWAP, "the word is not the compare-and-swap's value");
                Array.Clear(send, 0, SLOT);
                Put(send, 0, Encoding.ASCII.GetBytes("DONE"));
                Put(send, 8, BitConverter.GetBytes(word));
                Completion(s.Post(SendWork.Send(0x400, s.Send.Sge(0, SLOT)))[0], 0x400, Rdma.IBV_WC_SEND, SLOT, 0, 0, s.Qp);
                // 6. The client's disconnect; the objects are disposed by using.
                ep.AwaitDisconnect(WAIT_MS);
            }
        }
        Console.WriteLine("verbs: PASS role=server completions=12 word=0x" + word.ToString("x"));
    }

    static int Main(string[] args)
    {
        if (args.Length != 3 || (args[0] != "client" && args[0] != "server")) {
            Console.Error.WriteLine("usage: VerbsObjects client|server ADDR PORT");
            return 2;
        }
        role = args[0];
        try {
            if (role == "client")
                Client(args[1], int.Parse(args[2]));
            else
                Server(args[1], int.Parse(args[2]));
        } catch (RdmaVerbsException e) {
            Check(false, e.Message);
        }
        return 0;
    }
}
