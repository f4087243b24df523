// The verbs exchange of bindings/verbs-protocol.md through the C# object
// API's Task waits (ResolveAsync, ConnectAsync, GetRequestAsync,
// AcceptAsync, a CQ's WaitEventAsync and PollAsync, DisconnectAsync), its
// RoCE profile, as client against "peer verbs server" and as server against
// "peer verbs client". Everything runs on one thread (a single-threaded
// SynchronizationContext, the program's event loop), which no wait blocks:
// each await returns to the loop, which runs whatever is ready. A second
// task on that thread, every millisecond, counts how often it ran while a
// wait was pending; printed at the end: "async: other task ran N times
// while waiting".
// Usage: mono VerbsAsync.exe client|server ADDR PORT
using System;
using System.Collections.Concurrent;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using RdmaVerbs;

static class VerbsAsync
{
    const int SLOT = 64, SLOTS = 8, WAIT_MS = 60000;
    const ulong INITIAL = 0x1122334455667788, ADD = 0x1000000000000001;
    const ulong SWAP = 0x0fedcba987654321, STALE_SWAP = 0xdeaddeaddeaddead;
    static readonly int[] SERVER_LENS = { 8, 16, 24, 32, 40 };
    const int GRH = Rdma.IBV_WC_GRH, IMM = Rdma.IBV_WC_WITH_IMM;
    static string role;
    static int waiting, ran;   // (on the loop's thread only)

    /// <summary>One thread running every continuation posted to it, until done.</summary>
    sealed class Loop : SynchronizationContext
    {
        readonly BlockingCollection<Tuple<SendOrPostCallback, object>> queue =
            new BlockingCollection<Tuple<SendOrPostCallback, object>>();

        public override void Post(SendOrPostCallback d, object state)
        {
            queue.Add(Tuple.Create(d, state));
        }

        public void Run(Task done)
        {
            done.ContinueWith(_ => queue.CompleteAdding(), TaskScheduler.Default);
            foreach (var item in queue.GetConsumingEnumerable())
                item.Item1(item.Item2);
        }
    }

    /// <summary>t awaited, counted as a pending wait meanwhile.</summary>
    static async Task<T> W<T>(Task<T> t)
    {
        waiting++;
        try {
            return await t;
        } finally {
            waiting--;
        }
    }

    static async Task W(Task t)
    {
        waiting++;
        try {
            await t;
        } finally {
            waiting--;
        }
    }

    static async Task Ticker(Task done)
    {
        while (!done.IsCompleted) {
            if (waiting > 0)
                ran++;
            await Task.Delay(1);
        }
    }

    static void Check(bool ok, string what)
    {
        if (!ok) {
            Console.Error.WriteLine("verbs " + role + ": " + what);
            Environment.Exit(1);
        }
    }

    static void Completion(Completion c, ulong wrId, int opcode, int length, int flags, uint imm, QueuePair qp)
    {
        var want = new Completion(wrId, Rdma.IBV_WC_SUCCESS, opcode, length, flags, imm, qp.QpNum, 0, 0, 0, 0, 0, 0);
        Check(c.Equals(want), c + " (" + c.StatusText + "); want " + want);
    }

    /// <summary>The objects of one side (verbs-protocol.md, "The
    /// objects"), each a dependent of the endpoint, disposed with it.</summary>
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
                                    | Rdma.IBV_ACCESS_REMOTE_ATOMIC);
            Check(Atom.Address % 8 == 0, "the atomics' words are not 8-byte aligned");
            Qp = ep.CreateQp(new QpInit(Pd, Scq, Rcq) { Srq = Srq, MaxSendWr = 8, MaxSendSge = 2 });
            Srq.PostRecv(Enumerable.Range(0, SLOTS).Select(i => new RecvWork((ulong)(0x100 + i), Recv.Sge(SLOT * i, SLOT)))
                         .ToArray());
        }

        /// <summary>Sends wrs in one list, then their completions, awaited.</summary>
        public Task<Completion[]> Post(params SendWork[] wrs)
        {
            Qp.PostSend(wrs);
            return W(Scq.PollAsync(wrs.Length, WAIT_MS));
        }

        /// <summary>The receive CQ's next event, awaited; the CQ armed again
        /// (solicitedOnly), then one poll of up to 8.</summary>
        public async Task<Completion[]> NextEvent(bool solicitedOnly)
        {
            await W(Rcq.WaitEventAsync(WAIT_MS));
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

    static void Fill(byte[] b, int at, int len, int seed, int k)
    {
        for (int j = 0; j < len; j++)
            b[at + j] = (byte)(seed + 7 * k + j);
    }

    static bool Same(byte[] b, int at, int len, int seed, int k)
    {
        return Enumerable.Range(0, len).All(j => b[at + j] == (byte)(seed + 7 * k + j));
    }

    static async Task Client(string addr, int port)
    {
        using (var events = new EventChannel())
        using (var ep = await W(Endpoint.ResolveAsync(events, addr, port, WAIT_MS))) {
            var s = new Side(ep);
            s.Rcq.Arm(false);
            await W(ep.ConnectAsync(WAIT_MS));
            // 1. Keys, the first event; armed again for solicited completions.
            var wc = await s.NextEvent(true);
            Check(wc.Length == 1, "the keys' event: " + wc.Length + " completions");
            Completion(wc[0], 0x100, Rdma.IBV_WC_RECV, SLOT, GRH, 0, s.Qp);
            byte[] recv = s.Recv.Buffer, atom = s.Atom.Buffer;
            ulong word = U64(recv, 0);
            uint rkey = BitConverter.ToUInt32(recv, 8);
            Check(U64(recv, 16) == INITIAL, "the word's value is not the initial one");
            // 2. Atomics, one list: fetch-and-add, compare-and-swap, a stale one.
            wc = await s.Post(SendWork.FetchAdd(0x700, s.Atom.Sge(0, 8), word, rkey, ADD),
                              SendWork.CompareSwap(0x701, s.Atom.Sge(8, 8), word, rkey, INITIAL + ADD, SWAP),
                              SendWork.CompareSwap(0x702, s.Atom.Sge(16, 8), word, rkey, INITIAL + ADD, STALE_SWAP));
            Completion(wc[0], 0x700, Rdma.IBV_WC_FETCH_ADD, 8, 0, 0, s.Qp);
            Completion(wc[1], 0x701, Rdma.IBV_WC_COMP_SWAP, 8, 0, 0, s.Qp);
            Completion(wc[2], 0x702, Rdma.IBV_WC_COMP_SWAP, 8, 0, 0, s.Qp);
            Check(U64(atom, 0) == INITIAL && U64(atom, 8) == INITIAL + ADD && U64(atom, 16) == SWAP,
                  "the atomics' old values are not the word's");
            // 3. Four sends into the server's SRQ, two SGEs each, immediate data.
            var sends = new SendWork[4];
            for (int k = 0; k < 4; k++) {
                Fill(s.Send.Buffer, SLOT * k, SLOT, 0xc1, k);
                sends[k] = SendWork.SendWithImm((ulong)(0x300 + k), 0xc0de0000 + (uint)k, s.Send.Sge(SLOT * k, 16),
                                                s.Send.Sge(SLOT * k + 16, SLOT - 16));
            }
            wc = await s.Post(sends);
            for (int k = 0; k < 4; k++)
                Completion(wc[k], (ulong)(0x300 + k), Rdma.IBV_WC_SEND, SLOT, IMM, 0, s.Qp);
            // 4. The server's five, the event at the solicited last: five at once.
            wc = await s.NextEvent(false);
            Check(wc.Length == 5, "the solicited event: " + wc.Length + " completions in one poll, not 5");
            for (int k = 0; k < 5; k++) {
                Completion(wc[k], (ulong)(0x101 + k), Rdma.IBV_WC_RECV, SERVER_LENS[k], GRH | IMM, 0x5e4d0000 + (uint)k,
                           s.Qp);
                Check(Same(recv, SLOT * (1 + k), SERVER_LENS[k], 0x51, k), "a message byte differs");
            }
            // 5. DONE, and the server's DONE with the word's last value.
            Array.Clear(s.Send.Buffer, 0, SLOT);
            Put(s.Send.Buffer, 0, Encoding.ASCII.GetBytes("DONE"));
            Completion((await s.Post(SendWork.Send(0x500, s.Send.Sge(0, SLOT))))[0], 0x500, Rdma.IBV_WC_SEND, SLOT, 0, 0,
                       s.Qp);
            wc = await s.NextEvent(false);
            Check(wc.Length == 1, "the DONE event: " + wc.Length + " completions");
            Completion(wc[0], 0x106, Rdma.IBV_WC_RECV, SLOT, GRH, 0, s.Qp);
            Check(Encoding.ASCII.GetString(recv, 6 * SLOT, 4) == "DONE" && U64(recv, 6 * SLOT + 8) == SWAP,
                  "no DONE with the word's value");
            // 6. Disconnect; the objects are disposed by using.
            await W(ep.DisconnectAsync(WAIT_MS));
        }
        Console.WriteLine("verbs: PASS role=client completions=15 bytes=248");
    }

    static async Task Server(string addr, int port)
    {
        ulong word;
        using (var events = new EventChannel())
        using (var listener = Listener.Listen(events, addr, port, 1)) {
            Console.WriteLine("verbs: listening");
            Console.Out.Flush();
            using (var ep = await W(listener.GetRequestAsync(WAIT_MS))) {
                var s = new Side(ep);
                byte[] atom = s.Atom.Buffer, send = s.Send.Buffer, recv = s.Recv.Buffer;
                Put(atom, 0, BitConverter.GetBytes(INITIAL));
                await W(ep.AcceptAsync(WAIT_MS));
                // 1. Keys: the word's address, its rkey, its value.
                Put(send, 0, BitConverter.GetBytes(s.Atom.Address));
                Put(send, 8, BitConverter.GetBytes(s.Atom.Rkey));
                Put(send, 16, BitConverter.GetBytes(INITIAL));
                Completion((await s.Post(SendWork.Send(0x200, s.Send.Sge(0, SLOT))))[0], 0x200, Rdma.IBV_WC_SEND, SLOT, 0,
                           0, s.Qp);
                // 3. The client's four sends into the SRQ.
                var wc = await W(s.Rcq.PollAsync(4, WAIT_MS));
                for (int k = 0; k < 4; k++) {
                    Completion(wc[k], (ulong)(0x100 + k), Rdma.IBV_WC_RECV, SLOT, GRH | IMM, 0xc0de0000 + (uint)k, s.Qp);
                    Check(Same(recv, SLOT * k, SLOT, 0xc1, k), "a message byte differs");
                }
                // 4. Five sends, the last solicited: the client's event.
                var five = new SendWork[5];
                for (int k = 0; k < 5; k++) {
                    Fill(send, SLOT * k, SERVER_LENS[k], 0x51, k);
                    five[k] = SendWork.SendWithImm((ulong)(0x300 + k), 0x5e4d0000 + (uint)k,
                                                   s.Send.Sge(SLOT * k, SERVER_LENS[k]));
                }
                five[4].Solicited();
                wc = await s.Post(five);
                for (int k = 0; k < 5; k++)
                    Completion(wc[k], (ulong)(0x300 + k), Rdma.IBV_WC_SEND, SERVER_LENS[k], IMM, 0, s.Qp);
                // 5. DONE: the word is the compare-and-swap's; DONE and the word back.
                Completion((await W(s.Rcq.PollAsync(1, WAIT_MS)))[0], 0x104, Rdma.IBV_WC_RECV, SLOT, GRH, 0, s.Qp);
                Check(Encoding.ASCII.GetString(recv, 4 * SLOT, 4) == "DONE", "no DONE");
                word = U64(atom, 0);
                Check(word == SWAP, "the word is not the compare-and-swap's value");
                Array.Clear(send, 0, SLOT);
                Put(send, 0, Encoding.ASCII.GetBytes("DONE"));
                Put(send, 8, BitConverter.GetBytes(word));
                Completion((await s.Post(SendWork.Send(0x400, s.Send.Sge(0, SLOT))))[0], 0x400, Rdma.IBV_WC_SEND, SLOT, 0,
                           0, s.Qp);
                // 6. The client's disconnect; the objects are disposed by using.
                await W(ep.AwaitDisconnectAsync(WAIT_MS));
            }
        }
        Console.WriteLine("verbs: PASS role=server completions=12 word=0x" + word.ToString("x"));
    }

    static int Main(string[] args)
    {
        if (args.Length != 3 || (args[0] != "client" && args[0] != "server")
            || Environment.GetEnvironmentVariable("VERBS_PROFILE") == "iwarp") {
            Console.Error.WriteLine("usage: VerbsAsync.exe client|server ADDR PORT (the RoCE profile only)");
            return 2;
        }
        role = args[0];
        var loop = new Loop();
        SynchronizationContext.SetSynchronizationContext(loop);
        var exchange = role == "client" ? Client(args[1], int.Parse(args[2])) : Server(args[1], int.Parse(args[2]));
        var ticker = Ticker(exchange);
        loop.Run(Task.WhenAll(exchange, ticker));
        if (exchange.IsFaulted) {
            Check(false, exchange.Exception.InnerException.Message);
        }
        Console.WriteLine("async: other task ran " + ran + " times while waiting");
        return 0;
    }
}
