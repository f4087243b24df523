import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.rdmaverbs.Completion;
import org.rdmaverbs.CompletionChannel;
import org.rdmaverbs.CompletionQueue;
import org.rdmaverbs.Endpoint;
import org.rdmaverbs.EventChannel;
import org.rdmaverbs.Listener;
import org.rdmaverbs.MemoryRegion;
import org.rdmaverbs.ProtectionDomain;
import org.rdmaverbs.QpInit;
import org.rdmaverbs.QueuePair;
import org.rdmaverbs.RdmaVerbs;
import org.rdmaverbs.RdmaVerbsException;
import org.rdmaverbs.RecvWork;
import org.rdmaverbs.SendWork;
import org.rdmaverbs.SharedReceiveQueue;
import org.rdmaverbs.Sge;

/** The verbs exchange of bindings/verbs-protocol.md through the Java object
 * API (org.rdmaverbs' Endpoint, ProtectionDomain, MemoryRegion, ...): as the
 * client against the C server ("peer verbs server"), and as the server
 * against the C client ("peer verbs client"). Every object is closed with
 * its endpoint, by try-with-resources, in the order C needs, whatever
 * happens; every wait is bounded. VERBS_PROFILE=iwarp in the environment:
 * the exchange's iWARP profile (the client speaks first, no atomics, no
 * immediate data, no GRH; the fields RC leaves unset not checked: siw does
 * not write them).
 * Usage: VerbsObjects client|server ADDR PORT */
public final class VerbsObjects {
    static final int SLOT = 64, SLOTS = 8, WAIT_MS = 60000;
    static final long INITIAL = 0x1122334455667788L, ADD = 0x1000000000000001L;
    static final long SWAP = 0x0fedcba987654321L, STALE_SWAP = 0xdeaddeaddeaddeadL;
    static final int[] SERVER_LENS = {8, 16, 24, 32, 40};
    static final boolean IWARP = "iwarp".equals(System.getenv("VERBS_PROFILE"));
    static final int GRH = IWARP ? 0 : RdmaVerbs.IBV_WC_GRH, IMM = IWARP ? 0 : RdmaVerbs.IBV_WC_WITH_IMM;
    static String role;

    static void check(boolean ok, String what) {
        if (!ok) {
            System.err.println("verbs " + role + ": " + what);
            System.exit(1);
        }
    }

    /** One completion, every field: what verbs defines, and rxe's values
     * where it does not (bindings/verbs-protocol.md). */
    static void completion(Completion c, long wrId, int opcode, int length, int flags, int imm, QueuePair qp) {
        Completion want = IWARP
            ? new Completion(wrId, RdmaVerbs.IBV_WC_SUCCESS, opcode, length, flags, imm, qp.qpNum(), 0, c.srcQp(),
                             c.pkeyIndex(), c.slid(), c.sl(), c.dlidPathBits())
            : new Completion(wrId, RdmaVerbs.IBV_WC_SUCCESS, opcode, length, flags, imm, qp.qpNum(), 0, 0, 0, 0, 0, 0);
        check(c.equals(want), "completion " + c + " (" + c.statusText() + "); want " + want);
    }

    static ByteBuffer direct(int n) {
        return ByteBuffer.allocateDirect(n).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The objects of one side (verbs-protocol.md, "The objects"): made on
     * the endpoint's context, the QP on them, the SRQ's 8 receives posted.
     * Each is a dependent of the endpoint (made with it), which closes them
     * as it closes, in the order C needs (the QP first), whatever
     * happened, a failure here too. */
    static final class Side {
        final ProtectionDomain pd;
        final CompletionChannel channel;
        final CompletionQueue scq, rcq;
        final SharedReceiveQueue srq;
        final MemoryRegion recv, send, atom;
        final QueuePair qp;

        Side(Endpoint ep) throws RdmaVerbsException {
            pd = new ProtectionDomain(ep);
            channel = new CompletionChannel(ep);
            scq = new CompletionQueue(ep, 16, null);
            rcq = new CompletionQueue(ep, 16, channel);
            srq = new SharedReceiveQueue(pd, SLOTS, 1);
            recv = new MemoryRegion(pd, direct(SLOTS * SLOT), RdmaVerbs.IBV_ACCESS_LOCAL_WRITE);
            send = new MemoryRegion(pd, direct(5 * SLOT), 0);
            atom = new MemoryRegion(pd, direct(24), RdmaVerbs.IBV_ACCESS_LOCAL_WRITE | RdmaVerbs.IBV_ACCESS_REMOTE_READ
                                    | (IWARP ? RdmaVerbs.IBV_ACCESS_REMOTE_WRITE : RdmaVerbs.IBV_ACCESS_REMOTE_ATOMIC));
            check(atom.address() % 8 == 0, "the atomics' words are not 8-byte aligned");
            qp = ep.createQp(new QpInit(pd, scq, rcq).srq(srq).maxSendWr(8).maxSendSge(2));
            RdmaVerbs.ibv_qp q = new RdmaVerbs.ibv_qp(qp.handle());
            check(q.send_cq.equals(scq.handle()) && q.recv_cq.equals(rcq.handle()) && q.srq.equals(srq.handle()),
                  "the id's QP is not on the CQs and the SRQ given");
            RecvWork[] slots = new RecvWork[SLOTS];
            for (int i = 0; i < SLOTS; i++) slots[i] = new RecvWork(0x100 + i, recv.sge(SLOT * i, SLOT));
            srq.postRecv(slots);
        }

        /** Sends wrs in one list, then their completions (of the send CQ). */
        List<Completion> post(SendWork... wrs) throws RdmaVerbsException {
            qp.postSend(wrs);
            return scq.poll(wrs.length, WAIT_MS);
        }

        /** The receive CQ's next event: acknowledged, the CQ armed again
         * (solicitedOnly), then one poll of up to 8. */
        List<Completion> nextEvent(boolean solicitedOnly) throws RdmaVerbsException {
            rcq.await(WAIT_MS);
            rcq.arm(solicitedOnly);
            return rcq.poll(8);
        }

        /** Steps 4 and 5: the receive CQ's next event (RoCE); on iWARP its
         * n completions by the bounded wait (siw, Linux 6.1, signals no
         * solicited completion). */
        List<Completion> received(int n) throws RdmaVerbsException {
            return IWARP ? rcq.poll(n, WAIT_MS) : nextEvent(false);
        }

        byte[] bytes(MemoryRegion mr, int at, int n) {
            byte[] b = new byte[n];
            mr.buffer().get(at, b);
            return b;
        }

    }

    /** Byte j of message k of a side: (seed + 7k + j) mod 256. */
    static void fill(ByteBuffer b, int at, int len, int seed, int k) {
        for (int j = 0; j < len; j++) b.put(at + j, (byte) (seed + 7 * k + j));
    }

    /** A message with immediate data, or without on iWARP. */
    static SendWork sendImm(long wrId, int imm, Sge... sges) {
        return IWARP ? SendWork.send(wrId, sges) : SendWork.sendWithImm(wrId, imm, sges);
    }

    /** The immediate data a receive carries: none on iWARP. */
    static int imm(int value) {
        return IWARP ? 0 : value;
    }

    static boolean same(byte[] got, int seed, int k) {
        for (int j = 0; j < got.length; j++) {
            if (got[j] != (byte) (seed + 7 * k + j)) return false;
        }
        return true;
    }

    /** 3. Four sends into the server's SRQ, two SGEs each, immediate data. */
    static void clientSends(Side s) throws RdmaVerbsException {
        SendWork[] sends = new SendWork[4];
        for (int k = 0; k < 4; k++) {
            fill(s.send.buffer(), SLOT * k, SLOT, 0xc1, k);
            sends[k] = sendImm(0x300 + k, 0xc0de0000 + k, s.send.sge(SLOT * k, 16),
                               s.send.sge(SLOT * k + 16, SLOT - 16));
        }
        List<Completion> wc = s.post(sends);
        for (int k = 0; k < 4; k++) completion(wc.get(k), 0x300 + k, RdmaVerbs.IBV_WC_SEND, SLOT, IMM, 0, s.qp);
    }

    /** 1. Keys: the word's address, its rkey, its value. */
    static void serverKeys(Side s) throws RdmaVerbsException {
        s.send.buffer().putLong(0, s.atom.address()).putInt(8, s.atom.rkey()).putInt(12, 0).putLong(16, INITIAL);
        completion(s.post(SendWork.send(0x200, s.send.sge(0, SLOT))).get(0), 0x200, RdmaVerbs.IBV_WC_SEND,
                   SLOT, 0, 0, s.qp);
    }

    static void client(String addr, int port) throws RdmaVerbsException {
        try (Endpoint ep = Endpoint.resolve(addr, port, WAIT_MS)) {
            Side s = new Side(ep);
            s.rcq.arm(false);
            ep.connect(WAIT_MS);
            if (IWARP) clientSends(s);     // the client speaks first
            // 1. Keys, the first event; armed again for solicited completions.
            List<Completion> wc = s.nextEvent(true);
            check(wc.size() == 1, "the keys' event: " + wc.size() + " completions");
            completion(wc.get(0), 0x100, RdmaVerbs.IBV_WC_RECV, SLOT, GRH, 0, s.qp);
            ByteBuffer keys = s.recv.buffer();
            long word = keys.getLong(0);
            int rkey = keys.getInt(8);
            check(keys.getLong(16) == INITIAL, "the word's value is not the initial one");
            // 2. Atomics, one list: fetch-and-add, compare-and-swap, a stale one.
            // iWARP has none: a read of the word; then a write of SWAP and a
            // read back, one list (a write completes as siw sends it: after a
            // read in one list, its completion would come first).
            ByteBuffer old = s.atom.buffer();
            if (IWARP) {
                old.putLong(8, SWAP);
                wc = new ArrayList<>(s.post(SendWork.read(0x700, word, rkey, s.atom.sge(0, 8))));
                wc.addAll(s.post(SendWork.write(0x701, word, rkey, s.atom.sge(8, 8)),
                                 SendWork.read(0x702, word, rkey, s.atom.sge(16, 8))));
                completion(wc.get(0), 0x700, RdmaVerbs.IBV_WC_RDMA_READ, 8, 0, 0, s.qp);
                completion(wc.get(1), 0x701, RdmaVerbs.IBV_WC_RDMA_WRITE, 8, 0, 0, s.qp);
                completion(wc.get(2), 0x702, RdmaVerbs.IBV_WC_RDMA_READ, 8, 0, 0, s.qp);
            } else {
                wc = s.post(SendWork.fetchAdd(0x700, s.atom.sge(0, 8), word, rkey, ADD),
                            SendWork.compareSwap(0x701, s.atom.sge(8, 8), word, rkey, INITIAL + ADD, SWAP),
                            SendWork.compareSwap(0x702, s.atom.sge(16, 8), word, rkey, INITIAL + ADD, STALE_SWAP));
                completion(wc.get(0), 0x700, RdmaVerbs.IBV_WC_FETCH_ADD, 8, 0, 0, s.qp);
                completion(wc.get(1), 0x701, RdmaVerbs.IBV_WC_COMP_SWAP, 8, 0, 0, s.qp);
                completion(wc.get(2), 0x702, RdmaVerbs.IBV_WC_COMP_SWAP, 8, 0, 0, s.qp);
            }
            check(old.getLong(0) == INITIAL && old.getLong(8) == (IWARP ? SWAP : INITIAL + ADD)
                  && old.getLong(16) == SWAP, "the atomics' old values are not the word's");
            if (!IWARP) clientSends(s);
            // 4. The server's five, the event at the solicited last: five at once.
            wc = s.received(5);
            check(wc.size() == 5, "the solicited event: " + wc.size() + " completions in one poll, not 5");
            for (int k = 0; k < 5; k++) {
                completion(wc.get(k), 0x101 + k, RdmaVerbs.IBV_WC_RECV, SERVER_LENS[k], GRH | IMM, imm(0x5e4d0000 + k),
                           s.qp);
                check(same(s.bytes(s.recv, SLOT * (1 + k), SERVER_LENS[k]), 0x51, k), "a message byte differs");
            }
            // 5. DONE, and the server's DONE with the word's last value.
            s.send.buffer().put(0, new byte[SLOT]).put(0, "DONE".getBytes(StandardCharsets.US_ASCII));
            completion(s.post(SendWork.send(0x500, s.send.sge(0, SLOT))).get(0), 0x500, RdmaVerbs.IBV_WC_SEND, SLOT, 0,
                       0, s.qp);
            wc = s.received(1);
            check(wc.size() == 1, "the DONE event: " + wc.size() + " completions");
            completion(wc.get(0), 0x106, RdmaVerbs.IBV_WC_RECV, SLOT, GRH, 0, s.qp);
            check(new String(s.bytes(s.recv, 6 * SLOT, 4), StandardCharsets.US_ASCII).equals("DONE")
                  && s.recv.buffer().getLong(6 * SLOT + 8) == SWAP, "no DONE with the word's value");
            // 6. Disconnect; the objects are closed by try-with-resources.
            ep.disconnect(WAIT_MS);
        }
        System.out.println("verbs: PASS role=client completions=15 bytes=248");
    }

    static void server(String addr, int port) throws RdmaVerbsException {
        long word;
        try (EventChannel events = new EventChannel();
             Listener listener = Listener.listen(events, addr, port, 1)) {
            System.out.println("verbs: listening");
            System.out.flush();
            try (Endpoint ep = listener.getRequest(WAIT_MS)) {
                Side s = new Side(ep);
                ByteBuffer atom = s.atom.buffer(), out = s.send.buffer();
                atom.putLong(0, INITIAL);
                ep.accept(WAIT_MS);
                // 1. Keys (on iWARP after step 3: the client speaks first).
                if (!IWARP) serverKeys(s);
                // 3. The client's four sends into the SRQ.
                List<Completion> wc = s.rcq.poll(4, WAIT_MS);
                for (int k = 0; k < 4; k++) {
                    completion(wc.get(k), 0x100 + k, RdmaVerbs.IBV_WC_RECV, SLOT, GRH | IMM, imm(0xc0de0000 + k), s.qp);
                    check(same(s.bytes(s.recv, SLOT * k, SLOT), 0xc1, k), "a message byte differs");
                }
                if (IWARP) {
                    serverKeys(s);
                    // The client's write of SWAP into the word, before step 4:
                    // the five must not join the keys in its first poll (on
                    // RoCE its four sends come between).
                    long end = System.nanoTime() + WAIT_MS * 1_000_000L;
                    while (atom.getLong(0) != SWAP) {
                        check(System.nanoTime() < end, "the client's write of SWAP did not come within the wait");
                        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L);
                    }
                }
                // 4. Five sends, the last solicited: the client's event.
                List<SendWork> five = new ArrayList<>();
                for (int k = 0; k < 5; k++) {
                    fill(out, SLOT * k, SERVER_LENS[k], 0x51, k);
                    five.add(sendImm(0x300 + k, 0x5e4d0000 + k, s.send.sge(SLOT * k, SERVER_LENS[k])));
                }
                five.get(4).solicited();
                wc = s.post(five.toArray(new SendWork[0]));
                for (int k = 0; k < 5; k++) {
                    completion(wc.get(k), 0x300 + k, RdmaVerbs.IBV_WC_SEND, SERVER_LENS[k], IMM, 0, s.qp);
                }
                // 5. DONE: the word is the compare-and-swap's; DONE and the word back.
                completion(s.rcq.poll(1, WAIT_MS).get(0), 0x104, RdmaVerbs.IBV_WC_RECV, SLOT, GRH, 0, s.qp);
                check(new String(s.bytes(s.recv, 4 * SLOT, 4), StandardCharsets.US_ASCII).equals("DONE"), "no DONE");
                word = atom.getLong(0);
                check(word == SWAP, "the word is not the compare-and-swap's value");
                out.put(0, new byte[SLOT]).put(0, "DONE".getBytes(StandardCharsets.US_ASCII)).putLong(8, word);
                completion(s.post(SendWork.send(0x400, s.send.sge(0, SLOT))).get(0), 0x400, RdmaVerbs.IBV_WC_SEND,
                           SLOT, 0, 0, s.qp);
                // 6. The client's disconnect; the objects are closed by try-with-resources.
                ep.awaitDisconnect(WAIT_MS);
            }
        }
        System.out.println("verbs: PASS role=server completions=12 word=0x" + Long.toHexString(word));
    }

    public static void main(String[] args) throws RdmaVerbsException {
        if (args.length != 3 || !(args[0].equals("client") || args[0].equals("server"))) {
            System.err.println("usage: VerbsObjects client|server ADDR PORT");
            System.exit(2);
        }
        role = args[0];
        if (role.equals("client")) client(args[1], Integer.parseInt(args[2]));
        else server(args[1], Integer.parseInt(args[2]));
    }
}
